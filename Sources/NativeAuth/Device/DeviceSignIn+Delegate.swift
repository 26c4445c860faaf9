import Foundation

extension WebAuthClient {
    /// Starts a device code sign-in and reports the outcome to `delegate`, once, on the main
    /// actor. The delegate form of ``startDeviceSignIn(_:)``.
    ///
    /// - Returns: the task that runs the request; cancel it to stop (the delegate then gets
    ///   ``WebSignInError/isCancelled``).
    @discardableResult
    public func startDeviceSignIn(parameters: WebDeviceSignInParameters, delegate: any DeviceSignInStartDelegate)
        -> Task<Void, Never>
    {
        reportDeviceOutcome { () async throws(WebSignInError) in
            try await self.startDeviceSignIn(parameters)
        } deliver: { result in
            switch result {
            case .success(let state): delegate.onDeviceSignInStarted(newState: state)
            case .failure(let error): delegate.onDeviceSignInStartError(error: error)
            }
        }
    }
}

extension DeviceSignInState {
    /// Waits for the user's approval and reports the outcome to `delegate`, once, on the main
    /// actor. The delegate form of ``waitForCompletion()``.
    ///
    /// - Returns: the task that waits; cancel it to stop waiting (the delegate then gets
    ///   ``WebSignInError/isCancelled`` and this state to wait on again).
    @discardableResult
    public func waitForCompletion(delegate: any DeviceSignInWaitDelegate) -> Task<Void, Never> {
        reportDeviceOutcome { () async throws(WebSignInError) in
            try await self.waitForCompletion()
        } deliver: { result in
            switch result {
            case .success(let account): delegate.onDeviceSignInCompleted(result: account)
            case .failure(let error):
                delegate.onDeviceSignInWaitError(error: error, newState: self.isSpent ? nil : self)
            }
        }
    }
}

/// Runs a device sign-in action and hands its one outcome to `deliver` on the main actor.
private func reportDeviceOutcome<T: Sendable>(
    _ action: @escaping @Sendable () async throws(WebSignInError) -> T,
    deliver: @escaping @MainActor @Sendable (Result<T, WebSignInError>) -> Void
) -> Task<Void, Never> {
    Task {
        let result = await outcome(of: action)
        await MainActor.run { deliver(result) }
    }
}
