public import Foundation

/// The client metadata sent to a provider's registration endpoint (RFC 7591 §2, with OpenID
/// Connect Dynamic Client Registration's `application_type`).
///
/// The defaults register a public native client for the authorization code flow with PKCE and
/// refresh tokens: `grant_types` `authorization_code` and `refresh_token`, `response_types`
/// `code`, `token_endpoint_auth_method` `none`, `application_type` `native`.
///
/// ```swift
/// var request = ClientRegistrationRequest(
///     redirectURIs: [URL(string: "http://127.0.0.1/callback")!], clientName: "Example CLI",
///     scopes: ["openid", "offline_access"])
/// request.postLogoutRedirectURIs = [URL(string: "http://127.0.0.1/signed-out")!]
/// ```
public struct ClientRegistrationRequest: Sendable, Equatable {
    /// `redirect_uris`: where the provider may send the browser back; at least one.
    public var redirectURIs: [URL]
    /// `client_name`: the name the provider shows to users; not sent when `nil`.
    public var clientName: String?
    /// `scope`: the scopes the client may ask for, sent space-separated; not sent when empty (the
    /// provider picks its default).
    public var scopes: [String]
    /// `grant_types`; `authorization_code` and `refresh_token` by default.
    public var grantTypes: [String] = ["authorization_code", "refresh_token"]
    /// `response_types`; `code` by default.
    public var responseTypes: [String] = ["code"]
    /// `token_endpoint_auth_method`: `none` (a public client, the default), `client_secret_basic`
    /// or `client_secret_post` to be issued a secret (see ``ClientRegistration/clientAuthentication``).
    public var tokenEndpointAuthMethod: String = "none"
    /// `application_type` (OpenID Connect Dynamic Client Registration): `native` by default, or `web`.
    public var applicationType: String = "native"
    /// `post_logout_redirect_uris` (OpenID Connect RP-Initiated Logout): where the provider may
    /// send the browser after ending its session; not sent when empty.
    public var postLogoutRedirectURIs: [URL] = []
    /// Further metadata (`logo_uri`, `contacts`, `software_id`, …), sent as given. A name that one
    /// of the properties above sends is refused.
    public var additionalMetadata: [String: JSONValue] = [:]

    /// Creates a request for a public native client.
    ///
    /// - Parameters:
    ///   - redirectURIs: the client's redirect URIs; at least one.
    ///   - clientName: the name shown to users, if any.
    ///   - scopes: the scopes the client may ask for; empty leaves the choice to the provider.
    public init(redirectURIs: [URL], clientName: String? = nil, scopes: [String] = []) {
        self.redirectURIs = redirectURIs
        self.clientName = clientName
        self.scopes = scopes
    }

    /// The names the properties send.
    static let reservedNames = [
        "redirect_uris", "client_name", "scope", "grant_types", "response_types", "token_endpoint_auth_method",
        "application_type", "post_logout_redirect_uris",
    ]

    /// Checks what the provider would refuse anyway, before anything is sent.
    func validate() throws(WebSignInError) {
        guard !redirectURIs.isEmpty else { throw .invalidParameters("At least one redirect URI is needed.") }
        for uri in redirectURIs + postLogoutRedirectURIs {
            let components = URLComponents(url: uri, resolvingAgainstBaseURL: false)
            guard uri.scheme?.isEmpty == false, components?.fragment == nil else {
                throw .invalidParameters("Every redirect URI must be an absolute URI without a fragment.")
            }
        }
        guard scopes.allSatisfy(WebSignInParameters.isValidScopeToken) else {
            throw .invalidParameters("A scope is empty or has a character RFC 6749 does not allow.")
        }
        guard !tokenEndpointAuthMethod.isEmpty, !applicationType.isEmpty else {
            throw .invalidParameters("The token endpoint auth method and the application type must not be empty.")
        }
        if let reserved = additionalMetadata.sortedKeys.first(where: Self.reservedNames.contains) {
            throw .invalidParameters("The additional metadata '\(reserved)' is set by its own property.")
        }
    }

    /// The request's JSON object.
    var document: JSONValue {
        var members = additionalMetadata
        members["redirect_uris"] = .array(redirectURIs.map { .string($0.absoluteString) })
        if let clientName { members["client_name"] = .string(clientName) }
        if !scopes.isEmpty { members["scope"] = .string(scopes.joined(separator: " ")) }
        members["grant_types"] = .array(grantTypes.map(JSONValue.string))
        members["response_types"] = .array(responseTypes.map(JSONValue.string))
        members["token_endpoint_auth_method"] = .string(tokenEndpointAuthMethod)
        members["application_type"] = .string(applicationType)
        if !postLogoutRedirectURIs.isEmpty {
            members["post_logout_redirect_uris"] = .array(postLogoutRedirectURIs.map { .string($0.absoluteString) })
        }
        return .object(members)
    }
}

/// A client the provider registered (RFC 7591 §3.2.1): its client id, its secret if it was
/// issued one, and the credentials to manage the registration.
///
/// The secrets (``clientSecret``, ``registrationAccessToken``) never appear in a description,
/// `dump()` or log record; ``metadata`` holds every other member of the provider's answer. Keep
/// the secrets where the app keeps credentials (the keychain), not in preferences.
///
/// ```swift
/// let registration = try await WebAuthClient.register(request, issuer: issuer)
/// var configuration = WebAuthConfiguration()
/// configuration.clientAuthentication = registration.clientAuthentication
/// let client = try WebAuthClient(
///     issuer: issuer, clientId: registration.clientId, redirectURI: redirectURI, configuration: configuration)
/// ```
public struct ClientRegistration: Sendable {
    /// `client_id`: the client's new identifier.
    public var clientId: String { fields.clientId }
    /// `client_id_issued_at`, when the provider says.
    public var clientIdIssuedAt: Date? { fields.clientIdIssuedAt }
    /// `client_secret_expires_at`: when the secret expires; `nil` when it never does (`0`), when
    /// the provider does not say, or when no secret was issued.
    public var clientSecretExpiresAt: Date? { fields.clientSecretExpiresAt }
    /// `token_endpoint_auth_method` as the provider registered it, when it says.
    public var tokenEndpointAuthMethod: String? { fields.tokenEndpointAuthMethod }
    /// `registration_client_uri`: where the registration can be read, changed or deleted (RFC 7592),
    /// when the provider offers it.
    public var registrationClientURI: URL? { fields.registrationClientURI }
    /// Every member of the provider's answer except `client_secret` and
    /// `registration_access_token` (see ``clientSecret`` and ``registrationAccessToken``).
    public var metadata: [String: JSONValue] { fields.metadata }
    var secret: Secret? { fields.secret }
    var accessToken: Secret? { fields.accessToken }

    /// The members, behind one reference: a registration never changes once read, and the value
    /// is one pointer to copy.
    private let fields: Fields

    private final class Fields: Sendable {
        let clientId: String
        let clientIdIssuedAt: Date?
        let clientSecretExpiresAt: Date?
        let tokenEndpointAuthMethod: String?
        let registrationClientURI: URL?
        let metadata: [String: JSONValue]
        let secret: Secret?
        let accessToken: Secret?

        init(
            clientId: String, clientIdIssuedAt: Date?, clientSecretExpiresAt: Date?, tokenEndpointAuthMethod: String?,
            registrationClientURI: URL?, metadata: [String: JSONValue], secret: Secret?, accessToken: Secret?
        ) {
            self.clientId = clientId
            self.clientIdIssuedAt = clientIdIssuedAt
            self.clientSecretExpiresAt = clientSecretExpiresAt
            self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
            self.registrationClientURI = registrationClientURI
            self.metadata = metadata
            self.secret = secret
            self.accessToken = accessToken
        }
    }

    /// `client_secret`: the secret of a confidential client, `nil` for a public one. A secret:
    /// never log it.
    public var clientSecret: String? { secret?.reveal }

    /// `registration_access_token`: the bearer token for ``registrationClientURI``, when the
    /// provider issued one. A secret: never log it.
    public var registrationAccessToken: String? { accessToken?.reveal }

    /// How a ``WebAuthClient`` for this client authenticates: ``WebClientAuthentication/none``
    /// without a secret; with one, ``WebClientAuthentication/clientSecretPost(_:)`` when the
    /// registered method is `client_secret_post`, ``WebClientAuthentication/clientSecretBasic(_:)``
    /// otherwise (the RFC 7591 default).
    public var clientAuthentication: WebClientAuthentication {
        guard let secret else { return .none }
        return tokenEndpointAuthMethod == "client_secret_post"
            ? .clientSecretPost(secret.reveal) : .clientSecretBasic(secret.reveal)
    }

    /// Reads a registration endpoint's answer: 201 (RFC 7591) or 200 (which some providers send).
    ///
    /// - Throws: the typed error of an RFC 7591 §3.2.2 error answer, keeping the provider's
    ///   `error` and `error_description` (``WebSignInError/isInvalidRedirectURI``,
    ///   ``WebSignInError/isInvalidClientMetadata``, both also
    ///   ``WebSignInError/isConfigurationError``); ``WebSignInError/isConfigurationError`` for a
    ///   bare 401 or 403 (the initial access token was refused or is needed);
    ///   ``WebSignInError/isServerError`` for 429 and 5xx; ``WebSignInError/isUnexpectedResponse``
    ///   for an answer that is not a registration (no `client_id`, a member of the wrong type, not
    ///   JSON, a redirect).
    init(_ response: HTTPResponse, correlationId: UUID?) throws(WebSignInError) {
        let status = response.statusCode
        func unexpected(_ note: String) -> WebSignInError {
            WebSignInError(.unexpectedResponse, note: note, httpStatusCode: status, correlationId: correlationId)
        }
        let members = try WebHTTP.object(
            of: response, from: "registration endpoint", success: 200...201,
            refusal: "The registration endpoint refused the request; it may need an initial access token.",
            unexplained: "The answer is neither a registration nor an error.", correlationId: correlationId)
        func string(_ name: String) throws(WebSignInError) -> String? {
            guard let value = members[name], value != .null else { return nil }
            guard let text = value.stringValue else { throw unexpected("'\(name)' is not a string.") }
            return text
        }
        func date(_ name: String) throws(WebSignInError) -> Date? {
            guard let value = members[name], value != .null else { return nil }
            guard case .number(let seconds) = value, seconds.isFinite, seconds >= 0, seconds < 1e11 else {
                throw unexpected("'\(name)' is not a time in seconds.")
            }
            return seconds == 0 ? nil : Date(timeIntervalSince1970: seconds)
        }
        guard let clientId = try string("client_id"), !clientId.isEmpty else {
            throw unexpected("The answer has no 'client_id'.")
        }
        let secret = try string("client_secret").flatMap { $0.isEmpty ? nil : Secret($0) }
        let accessToken = try string("registration_access_token").flatMap { $0.isEmpty ? nil : Secret($0) }
        let clientIdIssuedAt = try date("client_id_issued_at")
        let clientSecretExpiresAt = secret == nil ? nil : try date("client_secret_expires_at")
        let tokenEndpointAuthMethod = try string("token_endpoint_auth_method")
        var registrationClientURI: URL?
        if let uri = try string("registration_client_uri") {
            guard let url = URL(string: uri), url.scheme != nil, url.host != nil else {
                throw unexpected("'registration_client_uri' is not an absolute URL.")
            }
            registrationClientURI = url
        }
        // The members without the two credentials: removed by name rather than filtered, which
        // would make a copy of the dictionary's filter for this one closure.
        var metadata = members
        metadata["client_secret"] = nil
        metadata["registration_access_token"] = nil
        fields = Fields(
            clientId: clientId, clientIdIssuedAt: clientIdIssuedAt, clientSecretExpiresAt: clientSecretExpiresAt,
            tokenEndpointAuthMethod: tokenEndpointAuthMethod, registrationClientURI: registrationClientURI,
            metadata: metadata, secret: secret, accessToken: accessToken)
    }
}

extension ClientRegistration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The client id and which credentials were issued; never a secret.
    public var description: String {
        var parts = ["clientId: \(clientId)"]
        if let tokenEndpointAuthMethod { parts.append("tokenEndpointAuthMethod: \(tokenEndpointAuthMethod)") }
        parts.append("clientSecret: \(secret == nil ? "none" : "<redacted>")")
        parts.append("registrationAccessToken: \(accessToken == nil ? "none" : "<redacted>")")
        return "ClientRegistration(\(parts.joined(separator: ", ")))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// The description and the metadata; never a secret.
    public var customMirror: Mirror {
        Mirror(self, children: ["description": description, "metadata": metadata], displayStyle: .struct)
    }
}

extension WebSignInError {
    /// The registration endpoint refused a redirect URI (`invalid_redirect_uri`, RFC 7591 §3.2.2);
    /// ``serverErrorDescription`` usually says which and why.
    public var isInvalidRedirectURI: Bool { serverError?.lowercased() == "invalid_redirect_uri" }

    /// The registration endpoint refused the client metadata (`invalid_client_metadata`, RFC 7591
    /// §3.2.2), such as a grant type or an authentication method it does not allow;
    /// ``serverErrorDescription`` usually says which.
    public var isInvalidClientMetadata: Bool { serverError?.lowercased() == "invalid_client_metadata" }
}
