public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Temporary minimal transport.
public struct URLSessionTransport: HTTPTransport {
    /// Creates the transport.
    public init() {}
    /// Sends the request.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw URLError(.notConnectedToInternet)
    }
}
