import Foundation

extension WebAuthClient {
    /// Starts a device code sign-in (OAuth 2.0 Device Authorization Grant, RFC 8628), for devices
    /// where the user cannot comfortably sign in: terminals, TVs (tvOS), consoles.
    ///
    /// Asks the provider's `device_authorization_endpoint` for a user code and a verification
    /// page. Show both to the user, who signs in on another device, then call
    /// ``DeviceSignInState/waitForCompletion()``. The client's redirect URI is not used.
    ///
    /// ```swift
    /// let state = try await client.startDeviceSignIn(WebDeviceSignInParameters(scopes: ["offline_access"]))
    /// print("Open \(state.verificationURI) and enter \(state.userCode)")
    /// let account = try await state.waitForCompletion()
    /// ```
    ///
    /// - Throws: ``WebSignInError``: ``WebSignInError/isUnsupported`` when the provider's metadata
    ///   names no `device_authorization_endpoint`, ``WebSignInError/isInvalidParameters`` (nothing
    ///   sent), ``WebSignInError/isConfigurationError`` when the provider refuses the client or a
    ///   scope, ``WebSignInError/isUnexpectedResponse`` for an answer without a usable
    ///   `device_code`, `user_code`, `verification_uri` or `expires_in`,
    ///   ``WebSignInError/isDiscoveryFailed``, ``WebSignInError/isNetworkError``,
    ///   ``WebSignInError/isCancelled``.
    public func startDeviceSignIn(_ parameters: WebDeviceSignInParameters) async throws(WebSignInError)
        -> DeviceSignInState
    {
        let correlationId = parameters.correlationId ?? UUID()
        do {
            try parameters.validate()
        } catch {
            throw error.with(correlationId: correlationId)
        }
        let metadata = try await provider.discovery.metadata(correlationId: correlationId)
        guard let endpoint = metadata.deviceAuthorizationEndpoint else {
            throw WebSignInError(
                .unsupported, note: "The provider's metadata has no 'device_authorization_endpoint'.",
                correlationId: correlationId)
        }
        let dpopKey = try await provider.newDPoPKey(metadata, correlationId: correlationId)
        let request = DeviceAuthorizationRequest(
            endpoint: endpoint, clientId: clientId, parameters: parameters, correlationId: correlationId)
        let answer = try await request.send(through: provider.pipeline)
        provider.noteServerDate(answer.serverDate)
        provider.log(
            .info, "device sign-in started", ["expiresIn": "\(answer.expiresIn)", "interval": "\(answer.interval)"],
            correlationId: correlationId)
        return DeviceSignInState(
            answer: answer, provider: provider, accounts: accounts, metadata: metadata, scopes: parameters.scopes,
            correlationId: correlationId, dpopKey: dpopKey)
    }
}
