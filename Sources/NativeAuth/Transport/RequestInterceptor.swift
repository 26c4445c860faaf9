public import Foundation

/// Sees, and may add headers to, every request the SDK sends to the identity provider.
///
/// Set interceptors in ``NativeAuthConfiguration/requestInterceptors`` (native authentication,
/// and the browser sign-in of a ``NativeAuthClient``) or ``WebAuthConfiguration/requestInterceptors``
/// (a ``WebAuthClient``). They run in order, each on the request as the one before left it, just
/// before the request goes to the ``HTTPTransport``; a retried request runs them again. Requests
/// to an app's own APIs (such as ``UserAccountResult/send(_:scopes:using:)``) are not intercepted.
///
/// An interceptor sees the endpoint, method, URL and headers, never the body (it holds passwords,
/// codes and tokens), and the values of credential headers (`Authorization`, `Cookie`) read as
/// `<redacted>`. It may set headers whose names start with `x-` (the prefixes `x-ms-`, `x-client-`,
/// `x-broker-` and `x-app-` are reserved for the SDK), as ``NativeAuthConfiguration/customHeaders``
/// may. It may throw to refuse the request: nothing is sent, and the action fails with a
/// ``RequestInterceptorError`` as its underlying error, naming the endpoint.
///
/// ```swift
/// struct TraceHeader: RequestInterceptor {
///     let traceId: @Sendable () -> String
///     func intercept(_ request: inout InterceptedRequest) async throws {
///         try request.setHeader("x-trace-id", traceId())
///     }
/// }
/// configuration.requestInterceptors = [TraceHeader(traceId: { UUID().uuidString })]
/// ```
public protocol RequestInterceptor: Sendable {
    /// Inspects `request` and may set headers on it with ``InterceptedRequest/setHeader(_:_:)``;
    /// throws to refuse it. Throwing `CancellationError` cancels the action instead.
    func intercept(_ request: inout InterceptedRequest) async throws
}

/// Which endpoint a request goes to, by name.
///
/// Native authentication endpoints are named by their path below the authority, such as
/// `oauth2/v2.0/initiate` or `signup/v1.0/start`; web sign-in endpoints by their role in the
/// provider's metadata: ``discovery``, ``token``, ``deviceAuthorization``, ``revocation``,
/// ``registration``, ``jwks``, ``pushedAuthorizationRequest`` and ``authorizationChallenge``.
public struct RequestEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The endpoint's name.
    public let name: String

    /// Creates an endpoint name.
    public init(_ name: String) { self.name = name }

    /// The name.
    public var description: String { name }

    /// The provider's OpenID configuration document.
    public static let discovery = RequestEndpoint("discovery")
    /// The web sign-in's token endpoint.
    public static let token = RequestEndpoint("token")
    /// The device authorization endpoint (RFC 8628).
    public static let deviceAuthorization = RequestEndpoint("device_authorization")
    /// The token revocation endpoint (RFC 7009).
    public static let revocation = RequestEndpoint("revocation")
    /// The dynamic client registration endpoint (RFC 7591).
    public static let registration = RequestEndpoint("registration")
    /// The provider's signing keys (`jwks_uri`).
    public static let jwks = RequestEndpoint("jwks")
    /// The pushed authorization request endpoint (RFC 9126).
    public static let pushedAuthorizationRequest = RequestEndpoint("pushed_authorization_request")
    /// The authorization challenge endpoint of OAuth 2.0 for First-Party Applications.
    public static let authorizationChallenge = RequestEndpoint("authorization_challenge")
}

/// A request on its way to the transport, as a ``RequestInterceptor`` sees it.
public struct InterceptedRequest: Sendable, CustomStringConvertible {
    /// The endpoint the request goes to.
    public let endpoint: RequestEndpoint
    /// The request as it will be sent.
    private(set) var request: HTTPRequest

    init(endpoint: RequestEndpoint, request: HTTPRequest) {
        self.endpoint = endpoint
        self.request = request
    }

    /// The method, such as `"POST"`.
    public var method: String { request.method }
    /// The absolute URL of the request.
    public var url: URL { request.url }
    /// The size of the body in bytes; its content is never shown.
    public var bodyLength: Int { request.body?.count ?? 0 }
    /// The headers; the values of `Authorization`, `Proxy-Authorization` and `Cookie` read as `<redacted>`.
    public var headers: [String: String] {
        var shown = request.headers
        for name in shown.keys where HTTPRequest.credentialHeaders.contains(name.lowercased()) {
            shown[name] = "<redacted>"
        }
        return shown
    }

    /// The value of the header `name`, matched case-insensitively; `<redacted>` for a credential header.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.equalsIgnoringASCIICase(name) }?.value
    }

    /// Sets the header `name` to `value`, replacing a header of the same name in any case.
    ///
    /// - Throws: ``RequestInterceptorError`` with ``RequestInterceptorError/isInvalidHeader`` when
    ///   the name does not start with `x-`, uses a prefix reserved for the SDK (`x-ms-`,
    ///   `x-client-`, `x-broker-`, `x-app-`), or the value holds a line break or control character.
    ///   The request is left as it was.
    public mutating func setHeader(_ name: String, _ value: String) throws(RequestInterceptorError) {
        guard AppHeader.problem(name: name, value: value) == nil else {
            throw RequestInterceptorError(endpoint: endpoint, reason: .invalidHeader(name: name))
        }
        for existing in request.headers.keys where existing.equalsIgnoringASCIICase(name) {
            request.headers[existing] = nil
        }
        request.headers[name] = value
    }

    /// The request's description: method, URL without its query, headers (credentials redacted)
    /// and the body's size.
    public var description: String { "InterceptedRequest(\(endpoint): \(request))" }
}

/// A ``RequestInterceptor`` refused a request, or set a header it may not set. Nothing was sent.
///
/// Native authentication reports it as the underlying error of a ``NativeAuthError`` whose
/// ``NativeAuthError/isNetworkError`` is `true` (the state stays usable); a web sign-in as the
/// underlying error of a ``WebSignInError`` whose ``WebSignInError/isNetworkError`` is `true`.
/// Its description names the endpoint and the interceptor's position and type, and only the
/// type of what the interceptor threw (the app's error may hold anything).
public struct RequestInterceptorError: Error, CustomStringConvertible, Sendable {
    enum Reason: Sendable {
        case refused(any Error)
        case invalidHeader(name: String)
    }

    /// The endpoint of the refused request.
    public let endpoint: RequestEndpoint
    /// The position of the interceptor in the configuration's list, from 0; `nil` when the error
    /// was made outside the SDK's run of the interceptors.
    public internal(set) var interceptorIndex: Int?
    /// The interceptor's type name.
    var interceptorType: String?
    let reason: Reason

    init(endpoint: RequestEndpoint, reason: Reason) {
        self.endpoint = endpoint
        self.reason = reason
    }

    /// What the interceptor threw, when it refused the request.
    public var underlyingError: (any Error)? {
        if case .refused(let error) = reason { return error }
        return nil
    }

    /// The interceptor set a header it may not set (a name without `x-`, a reserved prefix, or a
    /// control character in the value).
    public var isInvalidHeader: Bool {
        if case .invalidHeader = reason { return true }
        return false
    }

    /// Which interceptor refused which endpoint, and why, without any header value or body.
    public var description: String {
        var who = "A request interceptor"
        if let interceptorIndex {
            who = "Request interceptor \(interceptorIndex)" + (interceptorType.map { " (\($0))" } ?? "")
        }
        switch reason {
        case .refused(let error):
            return "\(who) refused the request to \(endpoint) (\(String(describing: type(of: error))))."
        case .invalidHeader(let name):
            return "\(who) set the header '\(name.prefix(80))' on the request to \(endpoint); only names that "
                + "start with 'x-', outside the SDK's reserved prefixes, and values without control characters are allowed."
        }
    }
}
