public import Foundation

/// What the SDK knows of an OpenID Connect provider: its issuer and endpoints, and what it supports.
///
/// The SDK builds it by discovery (it fetches `{issuer}/.well-known/openid-configuration`, or RFC
/// 8414's `/.well-known/oauth-authorization-server`). For a provider that publishes no document,
/// build it from explicit endpoints with
/// ``init(issuer:authorizationEndpoint:tokenEndpoint:jwksURI:endSessionEndpoint:revocationEndpoint:registrationEndpoint:deviceAuthorizationEndpoint:userinfoEndpoint:)``
/// and hand it to ``WebAuthClient/init(metadata:clientId:redirectURI:transport:credentialStore:configuration:)``,
/// which then sends no discovery request.
public struct ProviderMetadata: Sendable, Equatable {
    /// The issuer identifier, exactly as the provider writes it: ID tokens' `iss` must equal it.
    public var issuer: String
    /// Where the browser is sent to sign in (`authorization_endpoint`). `nil` for an authorization
    /// server that signs users in only at its ``authorizationChallengeEndpoint`` (RFC 8414 §2: the
    /// member is required "unless no grant types are supported that use the authorization
    /// endpoint"): a browser sign-in there fails with ``WebSignInError/isUnsupported``.
    public var authorizationEndpoint: URL?
    /// Where codes and refresh tokens are exchanged for tokens (`token_endpoint`).
    public var tokenEndpoint: URL
    /// The provider's signing keys (`jwks_uri`); required by OpenID Connect discovery.
    public var jwksURI: URL?
    /// Where the browser is sent to sign out (`end_session_endpoint`).
    public var endSessionEndpoint: URL?
    /// Where tokens are revoked (`revocation_endpoint`, RFC 7009).
    public var revocationEndpoint: URL?
    /// Where clients register themselves (`registration_endpoint`, RFC 7591).
    public var registrationEndpoint: URL?
    /// Where the device code flow starts (`device_authorization_endpoint`, RFC 8628).
    public var deviceAuthorizationEndpoint: URL?
    /// Where the user's claims are read (`userinfo_endpoint`).
    public var userinfoEndpoint: URL?
    /// Where tokens are introspected (`introspection_endpoint`, RFC 7662).
    public var introspectionEndpoint: URL?
    /// Where authorization requests are pushed before the browser is opened
    /// (`pushed_authorization_request_endpoint`, RFC 9126 §5); see
    /// ``WebAuthConfiguration/pushedAuthorizationRequests``.
    public var pushedAuthorizationRequestEndpoint: URL?
    /// Where a first-party app signs a user in with no browser
    /// (`authorization_challenge_endpoint`, OAuth 2.0 for First-Party Applications §8); see
    /// ``WebAuthClient/signInFirstParty(_:)``. `nil` when the provider publishes none.
    public var authorizationChallengeEndpoint: URL?

    /// `scopes_supported`; `nil` when the provider does not say.
    public var scopesSupported: [String]?
    /// `response_types_supported`; `nil` when the provider does not say.
    public var responseTypesSupported: [String]?
    /// `response_modes_supported`; `nil` when the provider does not say.
    public var responseModesSupported: [String]?
    /// `grant_types_supported`; `nil` when the provider does not say. Some providers list fewer
    /// grants than they support: the SDK does not refuse a grant because it is missing here.
    public var grantTypesSupported: [String]?
    /// `code_challenge_methods_supported`; `nil` when the provider does not say. The SDK always
    /// sends `S256`, never `plain`.
    public var codeChallengeMethodsSupported: [String]?
    /// `id_token_signing_alg_values_supported`; `nil` when the provider does not say.
    public var idTokenSigningAlgValuesSupported: [String]?
    /// `dpop_signing_alg_values_supported` (RFC 9449 §5.1): the algorithms the provider takes for
    /// DPoP proofs; `nil` when the provider does not say. With ``WebAuthConfiguration/dpop`` on,
    /// the key provider's first algorithm listed here is used.
    public var dpopSigningAlgValuesSupported: [String]?
    /// `token_endpoint_auth_methods_supported`; `nil` when the provider does not say.
    public var tokenEndpointAuthMethodsSupported: [String]?
    /// `token_endpoint_auth_signing_alg_values_supported` (RFC 8414 §2): the algorithms the provider
    /// takes for client assertions; `nil` when it does not say.
    public var tokenEndpointAuthSigningAlgValuesSupported: [String]?
    /// `claims_supported`; `nil` when the provider does not say.
    public var claimsSupported: [String]?
    /// `authorization_response_iss_parameter_supported` (RFC 9207): when `true`, every
    /// authorization response must carry `iss`, and the SDK refuses one without it.
    public var authorizationResponseIssParameterSupported: Bool
    /// `require_pushed_authorization_requests` (RFC 9126 §5): when `true`, the provider takes
    /// authorization requests only as pushed ones, and refuses any other at its authorization
    /// endpoint; `false` when the document does not say.
    public var requirePushedAuthorizationRequests: Bool

    /// Every member of the discovered document, as it came; empty for metadata built from endpoints.
    public var document: [String: JSONValue]

    /// Creates metadata from explicit endpoints, for a provider that publishes no discovery
    /// document: hand it to
    /// ``WebAuthClient/init(metadata:clientId:redirectURI:transport:credentialStore:configuration:)``.
    /// Set the other members (``authorizationChallengeEndpoint``,
    /// ``pushedAuthorizationRequestEndpoint``, …) on the value.
    ///
    /// The SDK checks these endpoints as it checks discovered ones (`https`, or `http` for loopback
    /// hosts only): the client's initialiser refuses metadata that breaks the rule.
    ///
    /// - Parameters:
    ///   - issuer: The issuer identifier, exactly as the provider's ID tokens carry it in `iss`.
    ///   - authorizationEndpoint: The authorization endpoint; `nil` for a provider that signs users
    ///     in only at its authorization challenge endpoint.
    ///   - tokenEndpoint: The token endpoint.
    ///   - jwksURI: The provider's signing keys.
    ///   - endSessionEndpoint: The end-session (sign-out) endpoint.
    ///   - revocationEndpoint: The token revocation endpoint.
    ///   - registrationEndpoint: The dynamic client registration endpoint.
    ///   - deviceAuthorizationEndpoint: The device authorization endpoint.
    ///   - userinfoEndpoint: The userinfo endpoint.
    public init(
        issuer: String, authorizationEndpoint: URL?, tokenEndpoint: URL, jwksURI: URL? = nil,
        endSessionEndpoint: URL? = nil, revocationEndpoint: URL? = nil, registrationEndpoint: URL? = nil,
        deviceAuthorizationEndpoint: URL? = nil, userinfoEndpoint: URL? = nil
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.jwksURI = jwksURI
        self.endSessionEndpoint = endSessionEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.registrationEndpoint = registrationEndpoint
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.userinfoEndpoint = userinfoEndpoint
        authorizationResponseIssParameterSupported = false
        requirePushedAuthorizationRequests = false
        document = [:]
    }

    /// Every endpoint with its document name, for checks.
    var endpoints: [(name: String, url: URL)] {
        var all: [(String, URL)] = []
        if let authorizationEndpoint { all.append(("authorization_endpoint", authorizationEndpoint)) }
        all.append(("token_endpoint", tokenEndpoint))
        if let jwksURI { all.append(("jwks_uri", jwksURI)) }
        for (name, keyPath) in Self.optionalEndpoints {
            if let url = self[keyPath: keyPath] { all.append((name, url)) }
        }
        if let authorizationChallengeEndpoint {
            all.append(("authorization_challenge_endpoint", authorizationChallengeEndpoint))
        }
        return all
    }

    /// The lists of strings the metadata keeps, by their document names, with where each is kept:
    /// what discovery reads.
    static let stringLists: [(String, any WritableKeyPath<ProviderMetadata, [String]?> & Sendable)] = [
        ("scopes_supported", \.scopesSupported), ("response_types_supported", \.responseTypesSupported),
        ("response_modes_supported", \.responseModesSupported), ("grant_types_supported", \.grantTypesSupported),
        ("code_challenge_methods_supported", \.codeChallengeMethodsSupported),
        ("dpop_signing_alg_values_supported", \.dpopSigningAlgValuesSupported),
        ("id_token_signing_alg_values_supported", \.idTokenSigningAlgValuesSupported),
        ("token_endpoint_auth_methods_supported", \.tokenEndpointAuthMethodsSupported),
        ("token_endpoint_auth_signing_alg_values_supported", \.tokenEndpointAuthSigningAlgValuesSupported),
        ("claims_supported", \.claimsSupported),
    ]

    /// The optional endpoints besides `jwks_uri` and `authorization_challenge_endpoint`, by their
    /// document names, with where each is kept: what discovery reads, and what ``endpoints`` lists.
    static let optionalEndpoints: [(String, any WritableKeyPath<ProviderMetadata, URL?> & Sendable)] = [
        ("end_session_endpoint", \.endSessionEndpoint), ("revocation_endpoint", \.revocationEndpoint),
        ("registration_endpoint", \.registrationEndpoint),
        ("device_authorization_endpoint", \.deviceAuthorizationEndpoint),
        ("userinfo_endpoint", \.userinfoEndpoint), ("introspection_endpoint", \.introspectionEndpoint),
        ("pushed_authorization_request_endpoint", \.pushedAuthorizationRequestEndpoint),
    ]

    /// Checks that every endpoint is an absolute `https` URL (or `http` on a loopback host) with
    /// no fragment.
    func checkEndpoints() throws(WebSignInError) {
        for (name, url) in endpoints {
            if let problem = EndpointPolicy.problem(with: url, field: name) {
                throw WebSignInError(.discoveryFailed(problem))
            }
        }
    }
}

/// Which URLs the web client talks to: `https`, or `http` for a loopback host only.
enum EndpointPolicy {
    /// What is wrong with `url` as an endpoint, if anything.
    static func problem(with url: URL, field: String) -> WebSignInError.DiscoveryProblem? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty,
            components.fragment == nil
        else { return .invalidURL(field) }
        switch scheme {
        case "https": return nil
        case "http": return isLoopback(host) ? nil : .insecureURL(field)
        default: return .insecureURL(field)
        }
    }

    /// `127.0.0.1`, `::1` (with or without brackets) and `localhost`.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return ["127.0.0.1", "::1", "localhost"].contains(bare.lowercased())
    }
}
