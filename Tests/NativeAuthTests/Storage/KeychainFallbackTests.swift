import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// The macOS keychain store's choice of keychain, with fake keychain calls: the data protection
/// keychain first; the file-based one only when the first refuses the process for want of an
/// entitlement (an unsigned command-line tool), and only for a store without an access group.
@Suite("Storage: the keychain store's fallback to the file-based keychain", .hangLimit)
struct KeychainFallbackTests {
    struct Status: Error {
        let code: Int32
    }

    /// Runs a fake call that answers `answers[dataProtection]`, recording where it went.
    func run(allowed: Bool, answers: [Bool: Int32]) -> (value: String?, error: Int32?, calls: [Bool]) {
        var calls: [Bool] = []
        do {
            let value = try KeychainFallback.run(allowed: allowed, status: { ($0 as? Status)?.code }) {
                dataProtection -> String in
                calls.append(dataProtection)
                let code = answers[dataProtection] ?? 0
                guard code == 0 else { throw Status(code: code) }
                return dataProtection ? "data protection" : "file-based"
            }
            return (value, nil, calls)
        } catch {
            return (nil, (error as? Status)?.code, calls)
        }
    }

    @Test func theDataProtectionKeychainIsUsedWhenItAnswers() {
        let outcome = run(allowed: true, answers: [true: 0])
        #expect(outcome.value == "data protection")
        #expect(outcome.calls == [true])
    }

    @Test func aMissingEntitlementFallsBackToTheFileBasedKeychain() {
        let outcome = run(allowed: true, answers: [true: -34018, false: 0])
        #expect(outcome.value == "file-based")
        #expect(outcome.calls == [true, false])
        #expect(KeychainFallback.missingEntitlement == -34018)
    }

    @Test func anyOtherRefusalIsNotAFallback() {
        // A locked device (errSecInteractionNotAllowed) must stay an error: never "nothing stored".
        let locked = run(allowed: true, answers: [true: -25308])
        #expect(locked.error == -25308)
        #expect(locked.calls == [true])
    }

    @Test func aStoreWithAnAccessGroupOrOffMacOSDoesNotFallBack() {
        let outcome = run(allowed: false, answers: [true: -34018, false: 0])
        #expect(outcome.error == -34018)
        #expect(outcome.calls == [true])
        #if os(macOS)
            #expect(KeychainFallback.hasFileBasedKeychain)
        #else
            #expect(!KeychainFallback.hasFileBasedKeychain)
        #endif
    }

    @Test func theFileBasedKeychainsOwnRefusalIsTheError() {
        let outcome = run(allowed: true, answers: [true: -34018, false: -25300])
        #expect(outcome.error == -25300)
        #expect(outcome.calls == [true, false])
    }
}
