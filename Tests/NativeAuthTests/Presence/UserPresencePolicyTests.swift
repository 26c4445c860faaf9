import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// The parts of the person's confirmation that need no account: the policies' arithmetic, the
/// requirement's reason, what LocalAuthentication's error codes mean, and what is shown of it all.
@Suite("Presence: policies, reasons and LocalAuthentication codes", .hangLimit)
struct UserPresencePolicyTests {
    let given = Date(timeIntervalSince1970: 1_800_000_000)

    func counts(_ policy: UserPresencePolicy, after seconds: TimeInterval, same session: Bool = true) -> Bool {
        policy.stillCounts(
            confirmedAt: given, confirmedIn: "s1", now: given.addingTimeInterval(seconds),
            session: session ? "s1" : "s2")
    }

    @Test func alwaysNeverCounts() {
        #expect(!counts(.always, after: 0))
        #expect(!counts(.always, after: 1))
    }

    @Test func sessionCountsWithinItsTimeoutAndItsSession() {
        let policy = UserPresencePolicy.session(timeout: 300)
        #expect(counts(policy, after: 0))
        #expect(counts(policy, after: 299.999))
        #expect(!counts(policy, after: 300))
        #expect(!counts(policy, after: 10, same: false))
        #expect(!counts(policy, after: -0.001), "a confirmation dated in the future")
    }

    @Test func appLaunchCountsWithinItsTimeoutWhateverTheSession() {
        let policy = UserPresencePolicy.appLaunch(timeout: 300)
        #expect(counts(policy, after: 299, same: false))
        #expect(!counts(policy, after: 300))
        #expect(!counts(policy, after: -1))
        #expect(UserPresencePolicy.appLaunch() == .appLaunch(timeout: 3_600))
        #expect(counts(.appLaunch(timeout: .infinity), after: 1e12))
    }

    @Test(arguments: [0, -5, -.infinity, .nan] as [TimeInterval])
    func aTimeoutThatIsNotPositiveMakesEveryRefreshAsk(timeout: TimeInterval) {
        #expect(!counts(.session(timeout: timeout), after: 0))
        #expect(!counts(.appLaunch(timeout: timeout), after: 0))
    }

    @Test func anEmptyReasonIsReplacedByTheDefaultOne() {
        var requirement = UserPresenceRequirement(policy: .always, reason: " \n", checker: ScriptedPresenceChecker())
        #expect(requirement.reason == UserPresenceRequirement.defaultReason)
        requirement.reason = "Unlock"
        #expect(requirement.reason == "Unlock")
        requirement.reason = ""
        #expect(requirement.reason == UserPresenceRequirement.defaultReason)
    }

    @Test func descriptionsShowNeitherTheReasonNorTheBiometryState() {
        let requirement = UserPresenceRequirement(
            policy: .session(timeout: 300), reason: "Private words", checker: ScriptedPresenceChecker())
        #expect(
            "\(requirement)"
                == "UserPresenceRequirement(policy: session(timeout: 300.0), checker: ScriptedPresenceChecker)")
        let confirmation = UserPresenceConfirmation(biometryState: Data("secret-state".utf8))
        #expect("\(confirmation)" == "UserPresenceConfirmation(biometryState: <12 bytes>)")
        #expect("\(UserPresenceConfirmation())" == "UserPresenceConfirmation(biometryState: nil)")
        #expect("\(UserPresenceError.lockedOut)".contains("locked"))
    }

    @Test func errorsAreEqualByReasonOnly() {
        let platform = NSError(domain: "com.apple.LocalAuthentication", code: -2)
        #expect(UserPresenceError(.cancelled, underlyingError: platform) == .cancelled)
        #expect(UserPresenceError.cancelled != .failed)
    }

    /// Every `LAError.Code` raw value, by the framework's constant names, and what it means here.
    static let localAuthenticationCodes: [(code: Int, reason: UserPresenceError)] = [
        (-1, .failed),  // authenticationFailed
        (-2, .cancelled),  // userCancel
        (-3, .cancelled),  // userFallback
        (-4, .cancelled),  // systemCancel
        (-5, .unavailable),  // passcodeNotSet
        (-6, .unavailable),  // biometryNotAvailable
        (-7, .notEnrolled),  // biometryNotEnrolled
        (-8, .lockedOut),  // biometryLockout
        (-9, .cancelled),  // appCancel
        (-10, .cancelled),  // invalidContext
        (-11, .unavailable),  // companionNotAvailable (watchNotAvailable)
        (-12, .unavailable),  // biometryNotPaired
        (-13, .unavailable),  // biometryDisconnected
        (-14, .unavailable),  // invalidDimensions
        (-1004, .unavailable),  // notInteractive
    ]

    @Test func localAuthenticationCodesMapToReasons() {
        for (code, reason) in Self.localAuthenticationCodes {
            let error = UserPresenceError(localAuthenticationCode: code, underlyingError: nil)
            #expect(error == reason, "code \(code)")
        }
        // A code this version does not know, or an error from elsewhere, is a failure.
        #expect(UserPresenceError(localAuthenticationCode: -99, underlyingError: nil) == .failed)
        #expect(UserPresenceError(localAuthenticationCode: nil, underlyingError: nil) == .failed)
        let platform = NSError(domain: "com.apple.LocalAuthentication", code: -8)
        let kept = UserPresenceError(localAuthenticationCode: -8, underlyingError: platform).underlyingError
        #expect((kept as? NSError)?.code == -8)
    }
}
