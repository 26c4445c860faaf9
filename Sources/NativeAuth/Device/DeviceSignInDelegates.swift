/// Receives the outcome of ``WebAuthClient/startDeviceSignIn(parameters:delegate:)``, once, on the
/// main actor.
@MainActor
public protocol DeviceSignInStartDelegate: AnyObject, Sendable {
    /// The provider gave a user code: show ``DeviceSignInState/userCode`` and
    /// ``DeviceSignInState/verificationURI``, then wait on `newState`. Required.
    func onDeviceSignInStarted(newState: DeviceSignInState)
    /// The sign-in could not start. Required.
    func onDeviceSignInStartError(error: WebSignInError)
}

/// Receives the outcome of ``DeviceSignInState/waitForCompletion(delegate:)``, once, on the main
/// actor.
@MainActor
public protocol DeviceSignInWaitDelegate: AnyObject, Sendable {
    /// The user approved on the other device and is signed in. Required.
    func onDeviceSignInCompleted(result: UserAccountResult)
    /// The wait ended without a sign-in. `newState` is the state to wait on again, when it is
    /// still usable (after a cancellation, a network failure or a server failure). Required.
    func onDeviceSignInWaitError(error: WebSignInError, newState: DeviceSignInState?)
}
