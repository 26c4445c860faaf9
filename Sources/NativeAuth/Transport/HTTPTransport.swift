public import Foundation

/// An HTTP request as the SDK hands it to an ``HTTPTransport``.
///
/// Header names are kept as given; compare them case-insensitively with ``header(_:)``.
public struct HTTPRequest: Sendable, Equatable {
    /// The method, such as `"POST"` or `"GET"`.
    public var method: String
    /// The absolute URL of the request.
    public var url: URL
    /// The request headers.
    public var headers: [String: String]
    /// The body, if any.
    public var body: Data?

    /// Creates a request.
    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The value of the header `name`, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.equalsIgnoringASCIICase(name) }?.value
    }
}

/// An HTTP response as an ``HTTPTransport`` returns it.
public struct HTTPResponse: Sendable, Equatable {
    /// The status code, such as `200` or `400`.
    public var statusCode: Int
    /// The response headers.
    public var headers: [String: String]
    /// The body; empty when the server sent none.
    public var body: Data

    /// Creates a response.
    public init(statusCode: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }

    /// The value of the header `name`, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.equalsIgnoringASCIICase(name) }?.value
    }
}

/// The one seam for all network traffic of the SDK.
///
/// A transport sends one request and returns the response, whatever its status code. It must not
/// follow redirects: a 3xx is returned as it is. Throw when no response arrived (no connection, a
/// timeout, a reset); throw `CancellationError` when the calling task was cancelled.
///
/// ``URLSessionTransport`` is the default. A test transport is a few lines:
///
/// ```swift
/// struct CannedTransport: HTTPTransport {
///     let body: String
///     func send(_ request: HTTPRequest) async throws -> HTTPResponse {
///         HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
///     }
/// }
/// ```
///
/// The `NativeAuthEmulator` library provides a whole emulated tenant as a transport.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the server's response, whatever its status code.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
