import Foundation

/// How a ``WebAuthClient`` authenticates itself at the provider's token and revocation endpoints
/// (RFC 6749 §2.3).
///
/// A native or desktop app is a public client and sends only its `client_id` (``none``, the
/// default). A confidential client, one the provider issued a secret to, sends the secret either
/// in an HTTP Basic `Authorization` header (``clientSecretBasic(_:)``, which every provider must
/// support) or in the request body (``clientSecretPost(_:)``). A confidential client with a key
/// sends a JWT signed with it (``privateKeyJWT(_:)``, the method FAPI 2.0 allows), and no secret
/// goes over the wire.
///
/// ```swift
/// var configuration = WebAuthConfiguration()
/// configuration.clientAuthentication = .clientSecretBasic(secretFromKeychain)
/// ```
///
/// The secret is never shown: every description, `dump()` and log record of this value reads
/// `<redacted>`. A secret shipped inside an app binary is not secret; use one only where the app
/// can keep it (a server-side tool, a secret from dynamic registration kept in the keychain).
@nonexhaustive
public indirect enum WebClientAuthentication: Sendable, Equatable {
    /// A public client: `client_id` in the request body, no secret.
    case none
    /// HTTP Basic authentication with the client id and this secret (`client_secret_basic`), each
    /// form-urlencoded before base64 (RFC 6749 §2.3.1); `client_id` is not repeated in the body.
    case clientSecretBasic(String)
    /// The client id and this secret as `client_id` and `client_secret` in the request body
    /// (`client_secret_post`).
    case clientSecretPost(String)
    /// A client assertion signed with the client's key (`private_key_jwt`, OpenID Connect Core
    /// §9): `client_assertion_type` and `client_assertion` in the request body (RFC 7523 §2.2),
    /// beside `client_id`.
    case privateKeyJWT(PrivateKeyJWT)

    /// The method's registered name (RFC 7591 §2, OpenID Connect Core §9): `none`,
    /// `client_secret_basic`, `client_secret_post` or `private_key_jwt`.
    public var methodName: String {
        switch self {
        case .none: "none"
        case .clientSecretBasic: "client_secret_basic"
        case .clientSecretPost: "client_secret_post"
        case .privateKeyJWT: "private_key_jwt"
        }
    }
}

extension WebClientAuthentication: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The method's name; never the secret.
    public var description: String {
        switch self {
        case .none: "none"
        case .clientSecretBasic: "clientSecretBasic(<redacted>)"
        case .clientSecretPost: "clientSecretPost(<redacted>)"
        case .privateKeyJWT(let method): method.description
        }
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// Only the description, so that `dump()` shows no secret.
    public var customMirror: Mirror { Mirror(self, children: ["method": description]) }
}

extension WebClientAuthentication {
    /// The secret, for the request that needs it.
    var secret: Secret? {
        switch self {
        case .none, .privateKeyJWT: nil
        case .clientSecretBasic(let secret), .clientSecretPost(let secret): Secret(secret)
        }
    }

    /// The names of the fields this method adds to a form, or replaces in it.
    static let credentialFields = ["client_secret", "client_assertion_type", "client_assertion"]

    /// `form` as this client sends it: with `client_id` (and `client_secret` for the post method,
    /// `client_assertion_type` and `client_assertion` for `private_key_jwt`), or without `client_id` when
    /// the Basic header carries it. `client_id` and the credential fields already in `form` are
    /// replaced, at the place `client_id` had.
    func authenticated(_ form: FormBody, clientId: String, assertion: Secret? = nil) -> FormBody {
        var result = FormBody()
        var placed = false
        func place() {
            placed = true
            switch self {
            case .none:
                result.add("client_id", clientId)
            case .clientSecretPost(let secret):
                result.add("client_id", clientId)
                result.add("client_secret", secret: Secret(secret))
            case .privateKeyJWT:
                result.add("client_id", clientId)
                result.add("client_assertion_type", ClientAssertion.type)
                result.add("client_assertion", secret: assertion)
            case .clientSecretBasic:
                break
            }
        }
        for field in form.fields {
            switch field.name {
            case "client_id": if !placed { place() }
            case _ where Self.credentialFields.contains(field.name): continue
            default: result.add(field.name, field.value)
            }
        }
        if !placed { place() }
        return result
    }

    /// The `Authorization` header of the Basic method, `nil` for the others.
    func authorizationHeader(clientId: String) -> Secret? {
        guard case .clientSecretBasic(let secret) = self else { return nil }
        let credentials = Self.formURLEncode(clientId) + ":" + Self.formURLEncode(secret)
        return Secret("Basic " + Data(credentials.utf8).base64EncodedString())
    }

    /// A POST of `form` to `url` with `headers`, authenticated as `clientId`: with the Basic
    /// method's `Authorization`, and the form as ``authenticated(_:clientId:assertion:)`` makes it.
    func request(url: URL, form: FormBody, clientId: String, headers: [String: String], assertion: Secret?)
        -> HTTPRequest
    {
        var headers = headers
        if let authorization = authorizationHeader(clientId: clientId) {
            headers["Authorization"] = authorization.reveal
        }
        return HTTPRequest(
            method: "POST", url: url, headers: headers,
            body: authenticated(form, clientId: clientId, assertion: assertion).encoded)
    }

    /// `application/x-www-form-urlencoded` (RFC 6749 Appendix B): RFC 3986's unreserved characters
    /// stay, a space becomes `+`, every other byte of the UTF-8 form is percent-encoded.
    static func formURLEncode(_ text: String) -> String {
        text.split(separator: " ", omittingEmptySubsequences: false).map { FormBody.escape(String($0)) }
            .joined(separator: "+")
    }
}
