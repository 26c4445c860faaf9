// A stand-in for Apple's LocalAuthentication framework, for Scripts/apple-typecheck.sh only: LAContext
// and its policies and errors as far as the SDK's Face ID / Touch ID confirmation uses them, with the
// Swift signatures developer.apple.com shows (each declaration cites its page). Nothing here runs:
// the bodies trap.
//
// Modelling notes:
// - LAContext is a plain NSObject subclass with no actor attribute on its page: not Sendable, as on
//   Darwin. The `reply` closure of evaluatePolicy is `@Sendable` (its page shows it); the reply runs
//   on a private queue.
// - The async evaluatePolicy(_:localizedReason:) is Swift's import of the reply-based method (the
//   reply-based method's page gives its declaration); it is nonisolated.
// - evaluatedPolicyDomainState is deprecated in iOS 18, macOS 15 and visionOS 2 in favour of
//   `domainState`; Swift warns about it only when the deployment target is at least that version.
//   Availability attributes are left out here (Swift ignores them on Linux).
// - This module is built with library evolution, so its enums are not frozen: switches need
//   `@unknown default`, as with Apple's. Apple's LAError.Code also has deprecated `touchID…` and
//   `watchNotAvailable` names for some codes (the `biometry…` names of those codes are aliases
//   there); they are left out.
// - NSErrorPointer, which swift-corelibs-foundation lacks, is declared here as the pointer type
//   `&error` converts to; on Darwin it is `AutoreleasingUnsafeMutablePointer<NSError?>?`.
public import Foundation

/// Foundation's error out-parameter (see the file's notes).
/// https://developer.apple.com/documentation/foundation/nserrorpointer
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?

/// What an evaluation asks of the person.
/// https://developer.apple.com/documentation/localauthentication/lapolicy
public enum LAPolicy: Int, @unchecked Sendable {
    /// Biometry only.
    /// https://developer.apple.com/documentation/localauthentication/lapolicy/deviceownerauthenticationwithbiometrics
    case deviceOwnerAuthenticationWithBiometrics = 1
    /// Biometry, or the device passcode.
    /// https://developer.apple.com/documentation/localauthentication/lapolicy/deviceownerauthentication
    case deviceOwnerAuthentication = 2
    /// A companion device such as a paired Watch.
    /// https://developer.apple.com/documentation/localauthentication/lapolicy/deviceownerauthenticationwithcompanion
    case deviceOwnerAuthenticationWithCompanion = 3
    /// Biometry or a companion device.
    /// https://developer.apple.com/documentation/localauthentication/lapolicy/deviceownerauthenticationwithbiometricsorcompanion
    case deviceOwnerAuthenticationWithBiometricsOrCompanion = 4
    /// Wrist detection on watchOS.
    /// https://developer.apple.com/documentation/localauthentication/lapolicy/deviceownerauthenticationwithwristdetection
    case deviceOwnerAuthenticationWithWristDetection = 5
}

/// The kind of biometry a device has.
/// https://developer.apple.com/documentation/localauthentication/labiometrytype
public enum LABiometryType: Int, @unchecked Sendable {
    /// No biometry. https://developer.apple.com/documentation/localauthentication/labiometrytype/none
    case none = 0
    /// Touch ID. https://developer.apple.com/documentation/localauthentication/labiometrytype/touchid
    case touchID = 1
    /// Face ID. https://developer.apple.com/documentation/localauthentication/labiometrytype/faceid
    case faceID = 2
    /// Optic ID. https://developer.apple.com/documentation/localauthentication/labiometrytype/opticid
    case opticID = 4
}

/// Evaluates authentication policies.
/// https://developer.apple.com/documentation/localauthentication/lacontext
open class LAContext: NSObject {
    /// A new context.
    override public init() { super.init() }

    /// Whether `policy` can be evaluated; when it cannot, `error` says why.
    /// https://developer.apple.com/documentation/localauthentication/lacontext/canevaluatepolicy(_:error:)
    open func canEvaluatePolicy(_ policy: LAPolicy, error: NSErrorPointer) -> Bool { fatalError("stub") }

    /// Evaluates `policy`, showing `localizedReason`; `reply` runs on a private queue.
    /// https://developer.apple.com/documentation/localauthentication/lacontext/evaluatepolicy(_:localizedreason:reply:)
    open func evaluatePolicy(
        _ policy: LAPolicy, localizedReason: String, reply: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        fatalError("stub")
    }

    /// The async form of ``evaluatePolicy(_:localizedReason:reply:)``.
    /// https://developer.apple.com/documentation/localauthentication/lacontext/evaluatepolicy(_:localizedreason:reply:)
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
        fatalError("stub")
    }

    /// Stops any evaluation in progress; the context cannot be used again.
    /// https://developer.apple.com/documentation/localauthentication/lacontext/invalidate()
    open func invalidate() { fatalError("stub") }

    /// The biometry the device has, known after `canEvaluatePolicy(_:error:)`.
    /// https://developer.apple.com/documentation/localauthentication/lacontext/biometrytype
    open var biometryType: LABiometryType { fatalError("stub") }

    /// An opaque value that changes when the enrolled biometry changes; non-nil after a biometric
    /// evaluation succeeds (deprecated in iOS 18, see the file's notes).
    /// https://developer.apple.com/documentation/localauthentication/lacontext/evaluatedpolicydomainstate
    open var evaluatedPolicyDomainState: Data? { fatalError("stub") }

    /// The authentication domain's state (iOS 18.0+, macOS 15.0+, visionOS 2.0+, Mac Catalyst 18.0+).
    /// https://developer.apple.com/documentation/localauthentication/lacontext/domainstate
    @available(iOS 18.0, macOS 15.0, visionOS 2.0, *)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    open var domainState: LADomainState { fatalError("stub") }
}

/// The authentication domain's state (iOS 18.0+, macOS 15.0+, visionOS 2.0+).
/// https://developer.apple.com/documentation/localauthentication/ladomainstate
@available(iOS 18.0, macOS 15.0, visionOS 2.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
open class LADomainState: NSObject {
    /// The biometry's state.
    /// https://developer.apple.com/documentation/localauthentication/ladomainstate/biometry
    open var biometry: LADomainStateBiometry { fatalError("stub") }
}

/// The biometry's state: `stateHash` changes when the enrolled biometry changes, `nil` when none is
/// enrolled (iOS 18.0+, macOS 15.0+, visionOS 2.0+).
/// https://developer.apple.com/documentation/localauthentication/ladomainstatebiometry
@available(iOS 18.0, macOS 15.0, visionOS 2.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
open class LADomainStateBiometry: NSObject {
    /// The biometry type available on the device.
    /// https://developer.apple.com/documentation/localauthentication/ladomainstatebiometry/biometrytype
    open var biometryType: LABiometryType { fatalError("stub") }
    /// State hash data for the available biometry type; `nil` if no biometry entities are enrolled.
    /// https://developer.apple.com/documentation/localauthentication/ladomainstatebiometry/statehash
    open var stateHash: Data? { fatalError("stub") }
}

/// The domain of LocalAuthentication's errors.
/// https://developer.apple.com/documentation/localauthentication/laerrordomain
public let LAErrorDomain: String = "com.apple.LocalAuthentication"

/// LocalAuthentication's errors. https://developer.apple.com/documentation/localauthentication/laerror-swift.struct
public struct LAError: CustomNSError, Hashable {
    /// The error codes (not frozen: switches need `@unknown default`).
    /// https://developer.apple.com/documentation/localauthentication/laerror-swift.struct/code
    public enum Code: Int, @unchecked Sendable {
        /// The person could not be authenticated.
        case authenticationFailed = -1
        /// The person cancelled.
        case userCancel = -2
        /// The person chose the fallback button.
        case userFallback = -3
        /// The system cancelled, as when another app came forward.
        case systemCancel = -4
        /// No passcode is set.
        case passcodeNotSet = -5
        /// Biometry is not available.
        case biometryNotAvailable = -6
        /// No biometry is enrolled.
        case biometryNotEnrolled = -7
        /// Biometry is locked after too many failures.
        case biometryLockout = -8
        /// The app cancelled (`invalidate()`).
        case appCancel = -9
        /// The context was invalidated before.
        case invalidContext = -10
        /// No companion device is nearby.
        case companionNotAvailable = -11
        /// The biometry accessory is not paired.
        case biometryNotPaired = -12
        /// The biometry accessory is not connected.
        case biometryDisconnected = -13
        /// The dimensions of embedded UI are invalid.
        case invalidDimensions = -14
        /// The evaluation would need UI that is not allowed.
        case notInteractive = -1004
    }

    /// The error's code.
    public var code: Code { fatalError("stub") }

    /// ``LAErrorDomain``.
    public static var errorDomain: String { LAErrorDomain }

    /// The code as a number.
    public var errorCode: Int { code.rawValue }
}
