import Foundation

/// Where an account's refresh token is redeemed for new tokens: the native API's token endpoint,
/// or a web provider's. It reads the answer and refuses what cannot belong to `account`; the
/// account manager stores what it returns.
protocol RefreshRedeemer: Sendable {
    /// The transport of the account's client, also used by `account.send`.
    var transport: any HTTPTransport { get }

    func redeem(
        refreshToken: Secret, scopes: [String], claims: String?, account: AccountRecord, correlationId: UUID
    ) async throws(RetrieveAccessTokenError) -> TokenAnswer
}

/// Redeems refresh tokens at the native API's token endpoint.
struct NativeRefreshRedeemer: RefreshRedeemer {
    let wire: WireClient

    var transport: any HTTPTransport { wire.pipeline.transport }

    func redeem(
        refreshToken: Secret, scopes: [String], claims: String?, account: AccountRecord, correlationId: UUID
    ) async throws(RetrieveAccessTokenError) -> TokenAnswer {
        do {
            let reply = try await wire.send(
                .token(.tokenRefresh(refreshToken: refreshToken, scopes: scopes), claims: claims),
                correlationId: correlationId)
            return try reply.decode { reply throws(WireFailure) in
                try TokenAnswer(reply.object, headers: reply.response)
            }
        } catch {
            // Only a dead refresh token signs the user out; consent, a second factor, conditional
            // access or a claims challenge keep the account (ErrorCatalogue.refreshKind).
            var refreshKind: ErrorKind?
            if case .server(let serverError) = error { refreshKind = serverError.refreshKind }
            throw RetrieveAccessTokenError(error, correlationId: correlationId, serverKind: refreshKind)
        }
    }
}
