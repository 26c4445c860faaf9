// Face ID, Touch ID and Optic ID through LocalAuthentication, where LAContext can evaluate a
// biometric policy: iOS (and Mac Catalyst), macOS and visionOS. Not on tvOS (no LAContext) nor on
// watchOS (no biometric policy, no evaluatedPolicyDomainState). Written against Apple's documented
// signatures and kept to the calls themselves: what an LAError code means is decided in
// UserPresenceError.swift, and what a biometry state means by the account manager, both tested on
// every platform.
//
// - LAContext: https://developer.apple.com/documentation/localauthentication/lacontext
// - evaluatePolicy(_:localizedReason:reply:), whose reply is `@Sendable (Bool, (any Error)?) -> Void`:
//   https://developer.apple.com/documentation/localauthentication/lacontext/evaluatepolicy(_:localizedreason:reply:)
// - LAError.Code: https://developer.apple.com/documentation/localauthentication/laerror-swift.struct/code
// - evaluatedPolicyDomainState (non-nil after a biometric evaluation succeeds; compare successive
//   values to detect a change of the enrolled biometrics):
//   https://developer.apple.com/documentation/localauthentication/lacontext/evaluatedpolicydomainstate
//   Deprecated in iOS 18, macOS 15 and visionOS 2, whose header warns that it "can change
//   exceptionally between major OS versions even if the state of biometry has not changed", for
//   domainState.biometry.stateHash (LADomainStateBiometry, iOS 18.0+, macOS 15.0+, visionOS 2.0+):
//   https://developer.apple.com/documentation/localauthentication/ladomainstatebiometry/statehash
//   The newer value is used where it exists; each confirmation names the OS version and the call
//   its state was read with (systemVersion), so the account manager asks the device owner, rather
//   than refusing, when the state changes with either.
#if canImport(LocalAuthentication) && !os(tvOS) && !os(watchOS)
    import AuthSupport
    import Foundation
    import LocalAuthentication

    /// Confirms the person's presence with Face ID, Touch ID or Optic ID, through LocalAuthentication
    /// (iOS, macOS and visionOS).
    ///
    /// Each confirmation uses a new `LAContext`, so the system shows the prompt every time the SDK
    /// asks. Add `NSFaceIDUsageDescription` to the app's `Info.plist`.
    public struct LocalAuthenticationPresenceChecker: UserPresenceChecker {
        /// Whether the device passcode may stand in for biometry (`.deviceOwnerAuthentication`)
        /// rather than biometry only (`.deviceOwnerAuthenticationWithBiometrics`, the default).
        public let allowsPasscode: Bool

        /// A checker.
        ///
        /// - Parameter allowsPasscode: `true` to let the device passcode stand in for biometry.
        public init(allowsPasscode: Bool = false) { self.allowsPasscode = allowsPasscode }

        /// Shows the system prompt with `reason`; cancelling the calling task ends it.
        public func confirmPresence(reason: String) async throws(UserPresenceError) -> UserPresenceConfirmation {
            try await evaluate(
                allowsPasscode ? .deviceOwnerAuthentication : .deviceOwnerAuthenticationWithBiometrics,
                reason: reason)
        }

        /// Shows the system prompt with `reason` for the device owner's credential: biometry or the
        /// device passcode (`.deviceOwnerAuthentication`), whatever ``allowsPasscode`` says.
        public func confirmOwner(reason: String) async throws(UserPresenceError) -> UserPresenceConfirmation {
            try await evaluate(.deviceOwnerAuthentication, reason: reason)
        }

        private func evaluate(_ policy: LAPolicy, reason: String) async throws(UserPresenceError)
            -> UserPresenceConfirmation
        {
            let context = ContextBox(LAContext())
            let failure: UserPresenceError? = await withTaskCancellationHandler {
                await withHandedContinuation(of: UserPresenceError?.self) { continuation in
                    context.context.evaluatePolicy(policy, localizedReason: reason) { success, error in
                        guard !success else { return continuation.resume(returning: nil) }
                        let laError = (error as NSError?).flatMap { $0.domain == LAErrorDomain ? $0 : nil }
                        continuation.resume(
                            returning: UserPresenceError(localAuthenticationCode: laError?.code, underlyingError: error)
                        )
                    }
                }
            } onCancel: {
                context.context.invalidate()
            }
            if let failure { throw failure }
            let system = ProcessInfo.processInfo.operatingSystemVersionString
            if #available(iOS 18.0, macOS 15.0, visionOS 2.0, *) {
                return UserPresenceConfirmation(
                    biometryState: context.context.domainState.biometry.stateHash,
                    systemVersion: system + "; domainState")
            }
            return UserPresenceConfirmation(
                biometryState: context.context.evaluatedPolicyDomainState,
                systemVersion: system + "; evaluatedPolicyDomainState")
        }
    }

    /// Carries the context into the cancellation handler, which may run on another thread.
    ///
    /// `@unchecked Sendable`: `invalidate()` is the one call made from there, and LocalAuthentication
    /// documents it as the way to stop an evaluation in progress.
    private final class ContextBox: @unchecked Sendable {
        let context: LAContext
        init(_ context: LAContext) { self.context = context }
    }
#endif
