import Foundation

/// Redeems a web account's refresh token at the provider's token endpoint and checks the new ID
/// token (when one comes) like the first: signature, issuer, audience, times, and the same `sub`.
///
/// A provider that answers the refresh with an authorization challenge (`insufficient_authorization`,
/// OAuth 2.0 for First-Party Applications §6.2) gets an ``RetrieveAccessTokenError/isInteractionRequired``
/// error with the state the user goes on with (``RetrieveAccessTokenError/firstPartyContinuation``).
struct WebRefreshRedeemer: RefreshRedeemer {
    let provider: WebProvider
    /// The client's redirect URI, for the browser a refresh's challenge may go on in.
    let redirectURI: URL
    /// The account manager that asks for the refresh, for the sign-in a refresh's challenge goes
    /// on with.
    let link: WebAccountsLink

    var transport: any HTTPTransport { provider.transport }

    func redeem(
        refreshToken: Secret, scopes: [String], claims: String?, account: AccountRecord, correlationId: UUID
    ) async throws(RetrieveAccessTokenError) -> TokenAnswer {
        let metadata: ProviderMetadata
        let outcome: WebRefreshAnswer
        do {
            metadata = try await provider.discovery.metadata(correlationId: correlationId)
            // A refresh token bound to a key is redeemed with a proof of the same key (RFC 9449 §5).
            let signer = try await provider.signer(forStoredKey: account.dpopKey, correlationId: correlationId)
            outcome = try await provider.tokens.refreshOrChallenge(
                refreshToken, clientId: provider.clientId, tokenEndpoint: metadata.tokenEndpoint,
                scopes: scopes.isEmpty ? nil : Self.withOpenID(scopes), correlationId: correlationId, dpop: signer)
        } catch {
            throw Self.retrieveError(error, correlationId: correlationId)
        }
        switch outcome {
        case .challenge(let answer, let status):
            throw await challengeError(
                answer, status: status, account: account, metadata: metadata, correlationId: correlationId)
        case .unbound(let error, let rotated):
            // The provider rotated the refresh token before the answer was refused: the new one is
            // kept (the one redeemed is dead), the access token is not.
            if let rotated { await link.accounts?.keepRotatedRefreshToken(rotated, replacing: refreshToken) }
            throw Self.retrieveError(error, correlationId: correlationId)
        case .tokens(let answer):
            do {
                provider.noteServerDate(answer.serverDate)
                if let idToken = answer.idToken {
                    _ = try await provider.validate(
                        idToken, metadata: metadata,
                        expecting: .init(
                            nonce: nil, subject: account.claims.subject, accessToken: answer.accessToken,
                            now: provider.providerNow()))
                }
                return TokenAnswer(answer)
            } catch {
                throw Self.retrieveError(error, correlationId: correlationId)
            }
        }
    }

    /// `openid` first, then the scopes, each once.
    static func withOpenID(_ scopes: [String]) -> [String] {
        var seen: Set<String> = []
        return (["openid"] + scopes.flatMap { $0.split(separator: " ").map(String.init) }).filter {
            seen.insert($0).inserted
        }
    }

    /// A refused refresh: `invalid_grant` means the refresh token is dead (RFC 6749 §5.2), an
    /// `interaction_required`-style answer keeps the account, anything else changes nothing.
    static func retrieveError(_ error: WebSignInError, correlationId: UUID) -> RetrieveAccessTokenError {
        let kind: ErrorKind
        if error.isInvalidGrant {
            kind = .refreshTokenExpired
        } else if error.isInteractionRequired {
            kind = .interactionRequired
        } else if error.isProofOfPossessionFailed {
            kind = .proofOfPossession
        } else if error.isInvalidIDToken {
            kind = .accountMismatch
        } else if error.isNetworkError {
            kind = .network
        } else if error.isCancelled {
            kind = .cancelled
        } else if error.isConfigurationError {
            kind = .configuration
        } else if error.isUnexpectedResponse || error.isDiscoveryFailed {
            kind = .unexpectedResponse
        } else {
            kind = .general
        }
        return RetrieveAccessTokenError(
            details: .init(kind, correlationId: correlationId, underlyingError: error, note: error.errorDescription))
    }
}

extension TokenAnswer {
    /// A web provider's answer, in the form the account manager stores, with `authSession` when
    /// the answer has no `auth_session` of its own.
    convenience init(_ answer: WebTokenAnswer, authSession: Secret? = nil) {
        self.init(
            tokenType: answer.tokenType, accessToken: answer.accessToken, refreshToken: answer.refreshToken,
            idToken: answer.idToken, scopes: answer.scopes ?? [], expiresIn: answer.expiresIn, clientInfo: nil,
            serverDate: answer.serverDate, authSession: answer.authSession ?? authSession)
    }
}
