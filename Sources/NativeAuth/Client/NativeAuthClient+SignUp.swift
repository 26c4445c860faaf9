import Foundation

extension NativeAuthClient {
    /// Starts signing a new user up.
    ///
    /// The server sends a code to verify the email address; a password and attributes are given
    /// up front in `parameters` or asked for by later steps.
    ///
    /// - Throws: ``SignUpStartError``; an empty username or password, or an attribute that cannot
    ///   be encoded, is refused before any request.
    public func signUp(_ parameters: SignUpParameters) async throws(SignUpStartError) -> SignUpStartResult {
        do {
            return try await SignUpFlow.start(parameters, client: core)
        } catch {
            throw SignUpStartError(error).continuing(
                core.context(username: parameters.username, scopes: [], correlationId: error.correlationId))
        }
    }
}

extension NativeAuthClient {
    /// Starts signing a new user up and reports the outcome to `delegate`, once, on the main actor.
    /// The delegate form of ``signUp(_:)``.
    public func signUp(parameters: SignUpParameters, delegate: any SignUpStartDelegate) {
        var parameters = parameters
        let correlationId = parameters.correlationId ?? UUID()
        parameters.correlationId = correlationId
        reportToDelegate(correlationId: correlationId) { [parameters] () async throws(SignUpStartError) in
            try await self.signUp(parameters)
        } deliver: { result in
            switch result {
            case .codeRequired(let state, let sentTo, let channel, let codeLength):
                delegate.onSignUpCodeRequired(
                    newState: state, sentTo: sentTo, channelTargetType: channel, codeLength: codeLength)
            case .attributesInvalid(let names):
                delegate.onSignUpAttributesInvalid(attributeNames: names)
            case .passwordRequired(let state):
                delegate.onSignUpPasswordRequired(newState: state)
            }
        } fail: { error in
            delegate.onSignUpStartError(error: error)
        }
    }
}
