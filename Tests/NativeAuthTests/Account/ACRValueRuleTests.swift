import Foundation
import Testing

@testable import NativeAuth

/// One rule for an `acr_values` entry (a scope token's, RFC 6749 §3.3) wherever a step-up's
/// values come from: a resource's header, an app's own ``StepUpChallenge``, a browser step-up's
/// parameters. A value one path takes, every path takes.
@Suite("Step-up: one rule for an acr_values entry")
struct ACRValueRuleTests {
    static let refused = ["a\u{A0}b", "a\u{2028}b", "caf\u{E9}", "a\"b", "a\\b", "a\tb"]
    static let taken = [
        "urn:example:mfa", "c1", "http://schemas.example.com/claims/mfa", "!#$%&'()*+,-./:;<=>?@[]^_`{|}~",
    ]

    @Test(arguments: refused)
    func aValueOutsideTheRuleIsRefusedOnEveryPath(_ value: String) throws {
        let quoted = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        let header = #"Bearer error="insufficient_user_authentication", acr_values=""# + quoted + #"""#
        #expect(StepUpChallenge(wwwAuthenticate: header) == nil, "an unreadable challenge is not guessed at")
        #expect(StepUpChallenge(acrValues: [value]).problem() != nil)
        #expect(throws: WebSignInError.self) {
            try WebSignInParameters(stepUp: StepUpChallenge(acrValues: [value])).validate()
        }
    }

    @Test(arguments: taken)
    func aValueInsideTheRuleIsTakenOnEveryPath(_ value: String) throws {
        let quoted = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        let header = #"Bearer error="insufficient_user_authentication", acr_values=""# + quoted + #"""#
        #expect(StepUpChallenge(wwwAuthenticate: header)?.acrValues == [value])
        #expect(StepUpChallenge(acrValues: [value]).problem() == nil)
        try WebSignInParameters(stepUp: StepUpChallenge(acrValues: [value])).validate()
    }
}
