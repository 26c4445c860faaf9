import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// The wire layer's one reading of answers: the error catalogue and the typed step outcome.
@Suite("Step outcomes and the error catalogue", .hangLimit)
struct StepOutcomeTests {
    static func serverError(_ json: String, status: Int = 400) throws -> ServerError {
        guard let members = try JSONValue.parse(Data(json.utf8)).objectValue,
            let error = ServerError(status: status, object: WireObject(members))
        else { throw TestFailure("not an error body") }
        return error
    }

    @Test func everyMeaningHasARule() {
        for meaning in ServerErrorMeaning.allCases {
            #expect(ServerError.catalogue.contains { $0.meaning == meaning }, "\(meaning) has no rule")
        }
    }

    @Test func aStepNamesTheFirstMeaningOfItsListThatApplies() throws {
        let notFound = try Self.serverError(#"{"error":"user_not_found","error_codes":[50034]}"#)
        #expect(notFound.kind(naming: [.invalidCode, .userNotFound]) == .userNotFound)
        #expect(notFound.kind(naming: [.invalidCode]) == nil)
        let wrongPassword = try Self.serverError(#"{"error":"invalid_grant","error_codes":[50126]}"#)
        #expect(wrongPassword.kind(naming: [.passwordStep]) == .invalidCredentials)
        #expect(PasswordRequiredError.naming.kind(of: wrongPassword) == .invalidPassword(nil))
        // A code counts only under its own error, and only first.
        let elsewhere = try Self.serverError(#"{"error":"invalid_request","error_codes":[50126]}"#)
        #expect(elsewhere.kind(naming: [.passwordStep]) == nil)
        let second = try Self.serverError(#"{"error":"invalid_grant","error_codes":[1,50126]}"#)
        #expect(second.kind(naming: [.passwordStep]) == nil)
        let policy = try Self.serverError(#"{"error":"invalid_grant","suberror":"password_too_weak"}"#)
        #expect(policy.kind(naming: [.passwordPolicy]) == .invalidPassword(.tooWeak))
    }

    @Test func anErrorTypeNamesAnAnswerByTheEndpointThatGaveIt() throws {
        let id = UUID()
        let wrongPassword = WireFailure.server(
            try Self.serverError(#"{"error":"invalid_grant","error_codes":[50126]}"#))
        #expect(PasswordRequiredError(wrongPassword, correlationId: id, from: .token).isInvalidPassword)
        // The methods listing the engine asks for after a token answer is no step's own call.
        #expect(PasswordRequiredError(wrongPassword, correlationId: id, from: .signInIntrospect).kind == .general)
        let verify = WireFailure.server(
            try Self.serverError(#"{"error":"invalid_request","suberror":"verification_required"}"#))
        #expect(VerifyCodeError(verify, correlationId: id, from: .resetPasswordContinue).isVerificationRequired)
        #expect(VerifyCodeError(verify, correlationId: id, from: .signUpContinue).isVerificationRequired)
        #expect(!VerifyCodeError(verify, correlationId: id, from: .token).isVerificationRequired)
        let username = WireFailure.server(
            try Self.serverError(
                #"{"error":"invalid_request","error_codes":[90100],"error_description":"username is empty"}"#))
        #expect(SignUpStartError(username, correlationId: id, from: .signUpStart).isInvalidUsername)
        #expect(!SignUpStartError(username, correlationId: id, from: .signUpChallenge).isInvalidUsername)
    }

    @Test func theEngineKeepsAServerErrorRawUntilAnErrorTypeNamesIt() throws {
        let wrongPassword = try Self.serverError(#"{"error":"invalid_grant","error_codes":[50126]}"#)
        let raw = FlowError(.server(wrongPassword), from: .token, correlationId: UUID())
        #expect(raw.details.kind == .general)
        let named = raw.named(as: PasswordRequiredError.self)
        #expect(named.details.kind == .invalidPassword(nil))
        #expect(named.details.server == wrongPassword)
        // Named once: another type's meanings no longer apply.
        #expect(named.named(as: SignInStartError.self).details.kind == .invalidPassword(nil))
        #expect(SignInStartError(raw).isInvalidCredentials)
    }

    @Test func nextStepsDependOnTheEndpointAndNeedAToken() throws {
        let mfa = try Self.serverError(#"{"error":"invalid_grant","suberror":"mfa_required","continuation_token":"t"}"#)
        #expect(NextStep.of(mfa, at: .token) == .mfa)
        #expect(NextStep.of(mfa, at: .signUpContinue) == nil)
        #expect(mfa.movesFlow)
        guard case .nextStep(.mfa, _, _) = StepOutcome(refusal: mfa, from: .token) else {
            throw TestFailure("expected the MFA step")
        }
        // Where no flow follows it, the answer is a refusal that still used up the token.
        let refused = StepOutcome(refusal: mfa, from: .signUpContinue)
        guard case .refused = refused else { throw TestFailure("expected a refusal") }
        #expect(refused.consumesToken)
        let noToken = try Self.serverError(#"{"error":"credential_required"}"#)
        #expect(NextStep.of(noToken, at: .signUpContinue) == nil)
        #expect(!StepOutcome(refusal: noToken, from: .signUpContinue).consumesToken)
        let credential = try Self.serverError(#"{"error":"credential_required","continuation_token":"t"}"#)
        #expect(NextStep.of(credential, at: .signUpContinue) == .credential)
    }

    @Test func successBodiesAreReadByEndpoint() throws {
        func reply(_ json: String) throws -> WireClient.Reply {
            guard let members = try JSONValue.parse(Data(json.utf8)).objectValue else { throw TestFailure("json") }
            return WireClient.Reply(
                object: WireObject(members),
                response: HTTPResponse(
                    statusCode: 200, headers: ["Content-Type": "application/json"], body: Data(json.utf8)))
        }
        guard
            case .challenged(.credential(.password, _)) = StepOutcome(
                try reply(#"{"continuation_token":"t","challenge_type":"password"}"#), from: .signInChallenge)
        else { throw TestFailure("expected password") }
        guard case .continued(nil) = StepOutcome(try reply("{}"), from: .signUpContinue) else {
            throw TestFailure("sign-up's last continue may come without a token")
        }
        // A 2xx missing what the endpoint must give is malformed, with the response's status, and
        // still counts as used.
        let malformed = StepOutcome(try reply("{}"), from: .signInInitiate)
        guard case .malformed(let answer) = malformed else { throw TestFailure("expected malformed") }
        #expect(answer.status == 200)
        #expect(malformed.consumesToken)
    }

    /// A challenge answer is read through ``ChallengeType``, the table of the names the app offers:
    /// each of them is an answer the SDK reads and names back, and `preverified` besides.
    @Test(arguments: ChallengeType.allCases.map(\.rawValue) + ["preverified", "OOB", "Password"])
    func everyChallengeTypeIsAnAnswerTheSDKReads(name: String) throws {
        guard
            let members = try JSONValue.parse(Data(#"{"continuation_token":"t","challenge_type":"\#(name)"}"#.utf8))
                .objectValue
        else { throw TestFailure("json") }
        let answer = try ChallengeAnswer(WireObject(members))
        #expect(answer.challengeType == name.lowercased())
        let failure = FlowContext.failure(for: .challenged(answer))
        guard case .unexpected(let unexpected) = failure else { throw TestFailure("expected an unexpected answer") }
        #expect(unexpected.problem == .unknownValue(field: "challenge_type", value: name.lowercased()))
        if name.lowercased() == "oob" {
            guard case .code = answer else { throw TestFailure("oob is a code sent") }
        }
    }

    @Test func aChallengeTypeOutsideTheTableIsRefused() throws {
        guard
            let members = try JSONValue.parse(Data(#"{"continuation_token":"t","challenge_type":"qr"}"#.utf8))
                .objectValue
        else { throw TestFailure("json") }
        #expect(throws: WireFailure.self) { try ChallengeAnswer(WireObject(members)) }
    }
}
