import Foundation

/// The web client's one way to the transport: sends a request and turns a transport failure into a
/// ``WebSignInError`` (cancellation or network), the one place where transport errors are wrapped.
enum WebHTTP {
    /// The largest answer the web client reads: discovery documents and token answers are far smaller.
    static let maximumBodySize = 1 << 20

    /// Reads a JSON answer: refuses one over ``maximumBodySize``, and turns an answer whose status
    /// is not a `success` and that names an OAuth `error` into its typed error (RFC 6749 §5.2).
    /// Returns the body's members; `nil` for an empty body or one that is not a JSON object.
    static func members(
        of response: HTTPResponse, success: (Int) -> Bool = { (200...299).contains($0) }, correlationId: UUID?
    ) throws(WebSignInError) -> [String: JSONValue]? {
        let status = response.statusCode
        guard response.body.count <= maximumBodySize else {
            throw WebSignInError(
                .unexpectedResponse, note: "The answer is over 1 MiB.", httpStatusCode: status,
                correlationId: correlationId)
        }
        let members = response.body.isEmpty ? nil : (try? JSONValue.parse(response.body))?.objectValue
        if !success(status), let members, let error = members["error"]?.stringValue, !error.isEmpty {
            throw WebSignInError.oauth(
                error: error, description: members["error_description"]?.stringValue,
                uri: members["error_uri"]?.stringValue, status: status, correlationId: correlationId)
        }
        return members
    }

    /// Headers sent with every request of the web client.
    static func headers(correlationId: UUID?, form: Bool) -> [String: String] {
        var headers = [
            "Accept": "application/json",
            "x-client-SKU": RequestBuilder.sdkName,
            "x-client-Ver": RequestBuilder.sdkVersion,
        ]
        if form { headers["Content-Type"] = "application/x-www-form-urlencoded" }
        if let correlationId {
            headers["client-request-id"] = correlationId.uuidString.lowercased()
            headers["return-client-request-id"] = "true"
        }
        return headers
    }

    /// Sends `request` to `endpoint`; `networkError` builds the error for a request that got no
    /// answer (a request interceptor's refusal included), which then names the endpoint.
    static func send(
        _ request: HTTPRequest, to endpoint: RequestEndpoint, through transport: any HTTPTransport, log: Log,
        correlationId: UUID?, networkError: (any Error) -> WebSignInError
    ) async throws(WebSignInError) -> HTTPResponse {
        let path = request.url.path
        guard !Task.isCancelled else { throw .cancelled(correlationId: correlationId) }
        log(.debug, "web request sent", ["method": request.method, "path": path], correlationId: correlationId)
        do {
            let response = try await RequestEndpoint.$current.withValue(endpoint) {
                try await transport.send(request)
            }
            log(
                .debug, "web answer received", ["path": path, "status": "\(response.statusCode)"],
                correlationId: correlationId)
            return response
        } catch {
            if error is CancellationError || Task.isCancelled || (error as? URLError)?.code == .cancelled {
                throw .cancelled(correlationId: correlationId)
            }
            log(
                .warning, "no answer from the provider", ["path": path, "error": WireClient.describe(error)],
                correlationId: correlationId)
            var failure = networkError(error)
            failure.endpoint = endpoint
            throw failure
        }
    }
}
