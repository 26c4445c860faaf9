import Foundation

/// One request of the native authentication API, with everything it sends.
///
/// Secrets travel as ``Secret`` so that no rendering of a call can show them.
/// Indirect: a value is one reference to its case's fields, so copying it, and the code
/// that copies and destroys it, stay small.
indirect enum WireCall: Sendable {
    case signInInitiate(username: String)
    case signInChallenge(continuationToken: Secret, methodId: String?)
    case signInIntrospect(continuationToken: Secret)
    case tokenWithPassword(continuationToken: Secret, username: String?, password: Secret, scopes: [String])
    case tokenWithCode(continuationToken: Secret, code: Secret, scopes: [String])
    case tokenWithMFACode(continuationToken: Secret, code: Secret, scopes: [String])
    case tokenWithContinuationToken(continuationToken: Secret, username: String?, scopes: [String])
    case tokenRefresh(refreshToken: Secret, scopes: [String])
    case signUpStart(username: String, password: Secret?, attributes: String?)
    case signUpChallenge(continuationToken: Secret)
    case signUpContinueWithCode(continuationToken: Secret, code: Secret)
    case signUpContinueWithPassword(continuationToken: Secret, password: Secret)
    case signUpContinueWithAttributes(continuationToken: Secret, attributes: String)
    case registerIntrospect(continuationToken: Secret)
    case registerChallenge(continuationToken: Secret, target: String, channel: String)
    case registerContinueWithCode(continuationToken: Secret, code: Secret)
    case registerContinueWithToken(continuationToken: Secret)
    case resetPasswordStart(username: String)
    case resetPasswordChallenge(continuationToken: Secret)
    case resetPasswordContinue(continuationToken: Secret, code: Secret)
    case resetPasswordSubmit(continuationToken: Secret, newPassword: Secret)
    case resetPasswordPollCompletion(continuationToken: Secret)
    /// A token request carrying an OIDC claims request (`claims`), as for an authentication
    /// context the resource asks for.
    case withClaims(WireCall, claims: String)

    /// Whether the call refreshes tokens (with or without a claims request).
    var isRefresh: Bool {
        switch self {
        case .tokenRefresh: true
        case .withClaims(let call, _): call.isRefresh
        default: false
        }
    }

    /// `call` with `claims` when there are any.
    static func token(_ call: WireCall, claims: String?) -> WireCall {
        guard let claims, !claims.isEmpty else { return call }
        return .withClaims(call, claims: claims)
    }

    var endpoint: Endpoint {
        switch self {
        case .withClaims(let call, _): call.endpoint
        case .signInInitiate: .signInInitiate
        case .signInChallenge: .signInChallenge
        case .signInIntrospect: .signInIntrospect
        case .tokenWithPassword, .tokenWithCode, .tokenWithMFACode, .tokenWithContinuationToken, .tokenRefresh: .token
        case .signUpStart: .signUpStart
        case .signUpChallenge: .signUpChallenge
        case .signUpContinueWithCode, .signUpContinueWithPassword, .signUpContinueWithAttributes: .signUpContinue
        case .registerIntrospect: .registerIntrospect
        case .registerChallenge: .registerChallenge
        case .registerContinueWithCode, .registerContinueWithToken: .registerContinue
        case .resetPasswordStart: .resetPasswordStart
        case .resetPasswordChallenge: .resetPasswordChallenge
        case .resetPasswordContinue: .resetPasswordContinue
        case .resetPasswordSubmit: .resetPasswordSubmit
        case .resetPasswordPollCompletion: .resetPasswordPollCompletion
        }
    }
}

/// Builds the HTTP request of each ``WireCall`` for one configuration. A class: it never changes
/// once built, and its many fields are shared rather than copied.
final class RequestBuilder: Sendable {
    static let defaultScopes = ["openid", "profile", "offline_access"]
    static let sdkName = "swift-native-auth"
    static let sdkVersion = "0.1.0"

    let clientId: String
    let authority: URL
    let challengeTypes: Set<ChallengeType>
    let capabilities: Set<Capability>
    let customHeaders: [String: String]
    /// Every header but the correlation id, built once.
    private let fixedHeaders: [String: String]
    /// Each endpoint's URL under the authority, with the configured `dc`, built once (a list: there
    /// are few).
    private let urls: [(endpoint: Endpoint, url: URL)]
    /// The token endpoint's URL for a refresh, with the configured `slice` and `dc`.
    private let refreshURL: URL

    init(configuration: NativeAuthConfiguration) {
        clientId = configuration.clientId
        authority = configuration.authority
        challengeTypes = configuration.challengeTypes
        capabilities = configuration.capabilities
        customHeaders = configuration.customHeaders
        var headers = configuration.customHeaders
        headers["Accept"] = "application/json"
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        headers["return-client-request-id"] = "true"
        headers["x-client-SKU"] = Self.sdkName
        headers["x-client-Ver"] = Self.sdkVersion
        headers["x-client-OS"] = Self.operatingSystem
        fixedHeaders = headers
        // MSAL's native authentication adds the slice's `dc` to every request it builds, and its
        // silent refresh both `slice` and `dc` (Docs/NativeAuthV2Protocol.md, "The slice parameters").
        let slice = configuration.sliceConfig
        urls = Endpoint.allCases.map { endpoint in
            let url = SliceConfig.appending(
                [("dc", slice?.dc)],
                to: configuration.authority.appendingPathComponent(endpoint.rawValue, isDirectory: false))
            return (endpoint, url)
        }
        refreshURL = SliceConfig.appending(
            [("slice", slice?.slice), ("dc", slice?.dc)],
            to: configuration.authority.appendingPathComponent(Endpoint.token.rawValue, isDirectory: false))
    }

    /// The challenge types the app supports, in ``ChallengeType``'s order (`oob password`), then
    /// `redirect`, always last.
    var challengeTypeField: String {
        (ChallengeType.allCases.filter { challengeTypes.contains($0) }.map(\.rawValue) + ["redirect"])
            .joined(separator: " ")
    }

    /// Password reset only ever uses codes.
    var resetChallengeTypeField: String { "oob redirect" }

    /// The declared capabilities, space-separated in a stable order; `nil` when there are none.
    var capabilitiesField: String? {
        let names = Capability.allCases.filter { capabilities.contains($0) }.map(\.rawValue)
        return names.isEmpty ? nil : names.joined(separator: " ")
    }

    /// The requested scopes, de-duplicated, followed by `openid profile offline_access`.
    static func scopeField(_ scopes: [String]) -> String { joinedScopes(scopes + defaultScopes) }

    /// `scopes` split on spaces, de-duplicated in order and joined with spaces: the `scope` field of
    /// V1 and V2 alike.
    static func joinedScopes(_ scopes: [String]) -> String {
        var seen = Set<String>()
        var merged: [String] = []
        for scope in scopes.flatMap({ $0.split(separator: " ").map(String.init) }) where seen.insert(scope).inserted {
            merged.append(scope)
        }
        return merged.joined(separator: " ")
    }

    /// The platform and its version, read once: reading it costs a system call or a file read.
    static let operatingSystem: String = {
        // apple-typecheck: one variant: these platform branches differ only in a string constant
        #if os(Linux)
            let name = "Linux"
        #elseif os(macOS)
            let name = "macOS"
        #elseif os(iOS)
            let name = "iOS"
        #elseif os(tvOS)
            let name = "tvOS"
        #elseif os(watchOS)
            let name = "watchOS"
        #else
            let name = "unknown"
        #endif
        let version = ProcessInfo.processInfo.operatingSystemVersion
        return "\(name) \(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
    }()

    func headers(correlationId: UUID) -> [String: String] {
        var headers = fixedHeaders
        headers["client-request-id"] = correlationId.uuidString.lowercased()
        return headers
    }

    func form(for call: WireCall) -> FormBody {
        if case .withClaims(let inner, let claims) = call {
            var form = form(for: inner)
            form.add("claims", claims)
            return form
        }
        var form = FormBody()
        form.add("client_id", clientId)
        switch call {
        case .withClaims: break
        case .signInInitiate(let username):
            form.add("username", username)
            form.add("challenge_type", challengeTypeField)
            form.add("capabilities", capabilitiesField)
        case .signInChallenge(let token, let methodId):
            form.add("continuation_token", secret: token)
            form.add("challenge_type", challengeTypeField)
            form.add("id", methodId)
        case .signInIntrospect(let token), .registerIntrospect(let token), .signUpChallenge(let token),
            .resetPasswordPollCompletion(let token):
            form.add("continuation_token", secret: token)
            if case .signUpChallenge = call { form.add("challenge_type", challengeTypeField) }
        case .tokenWithPassword(let token, let username, let password, let scopes):
            form.add("continuation_token", secret: token)
            form.add("grant_type", "password")
            form.add("username", username)
            form.add("password", secret: password)
            form.add("scope", Self.scopeField(scopes))
            form.add("client_info", "true")
        case .tokenWithCode(let token, let code, let scopes), .tokenWithMFACode(let token, let code, let scopes):
            form.add("continuation_token", secret: token)
            if case .tokenWithMFACode = call {
                form.add("grant_type", "mfa_oob")
            } else {
                form.add("grant_type", "oob")
            }
            form.add("oob", secret: code)
            form.add("scope", Self.scopeField(scopes))
            form.add("client_info", "true")
        case .tokenWithContinuationToken(let token, let username, let scopes):
            form.add("continuation_token", secret: token)
            form.add("grant_type", "continuation_token")
            form.add("username", username)
            form.add("scope", Self.scopeField(scopes))
            form.add("client_info", "true")
        case .tokenRefresh(let refreshToken, let scopes):
            form.add("grant_type", "refresh_token")
            form.add("refresh_token", secret: refreshToken)
            form.add("scope", Self.scopeField(scopes))
            form.add("client_info", "true")
        case .signUpStart(let username, let password, let attributes):
            form.add("username", username)
            form.add("challenge_type", challengeTypeField)
            form.add("password", secret: password)
            form.add("attributes", attributes)
            form.add("capabilities", capabilitiesField)
        case .signUpContinueWithCode(let token, let code), .registerContinueWithCode(let token, let code),
            .resetPasswordContinue(let token, let code):
            form.add("continuation_token", secret: token)
            form.add("grant_type", "oob")
            form.add("oob", secret: code)
        case .signUpContinueWithPassword(let token, let password):
            form.add("continuation_token", secret: token)
            form.add("grant_type", "password")
            form.add("password", secret: password)
        case .signUpContinueWithAttributes(let token, let attributes):
            form.add("continuation_token", secret: token)
            form.add("grant_type", "attributes")
            form.add("attributes", attributes)
        case .registerChallenge(let token, let target, let channel):
            form.add("continuation_token", secret: token)
            form.add("challenge_type", "oob")
            form.add("challenge_target", target)
            form.add("challenge_channel", channel)
        case .registerContinueWithToken(let token):
            form.add("continuation_token", secret: token)
            form.add("grant_type", "continuation_token")
        case .resetPasswordStart(let username):
            form.add("username", username)
            form.add("challenge_type", resetChallengeTypeField)
            form.add("capabilities", capabilitiesField)
        case .resetPasswordChallenge(let token):
            form.add("continuation_token", secret: token)
            form.add("challenge_type", resetChallengeTypeField)
        case .resetPasswordSubmit(let token, let newPassword):
            form.add("continuation_token", secret: token)
            form.add("new_password", secret: newPassword)
        }
        return form
    }

    func url(for endpoint: Endpoint) -> URL {
        urls.first { $0.endpoint == endpoint }?.url
            ?? authority.appendingPathComponent(endpoint.rawValue, isDirectory: false)
    }

    func request(for call: WireCall, correlationId: UUID) -> HTTPRequest {
        request(for: call, form: form(for: call), correlationId: correlationId)
    }

    func request(for call: WireCall, form: FormBody, correlationId: UUID) -> HTTPRequest {
        var url = url(for: call.endpoint)
        if call.isRefresh { url = refreshURL }
        return HTTPRequest(method: "POST", url: url, headers: headers(correlationId: correlationId), body: form.encoded)
    }
}
