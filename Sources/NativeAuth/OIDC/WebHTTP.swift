import Foundation

/// The web client's side of the ``RequestPipeline``: the headers of its requests, and how a
/// request that got no readable answer, and an OAuth error answer, become ``WebSignInError``s.
enum WebHTTP {
    /// Reads a JSON answer (the pipeline has already refused one over its size cap), and turns an
    /// answer whose status is not a `success` and that names an OAuth `error` into its typed error
    /// (RFC 6749 §5.2). Returns the body's members; `nil` for an empty body or one that is not a
    /// JSON object.
    static func members(
        of response: HTTPResponse, success: (Int) -> Bool = { (200...299).contains($0) }, correlationId: UUID?
    ) throws(WebSignInError) -> [String: JSONValue]? {
        let status = response.statusCode
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

    /// Sends `request` to `endpoint` through `pipeline` and returns the answer, whatever its status.
    ///
    /// - Parameters:
    ///   - readOnly: the request changes nothing at the provider (discovery, keys), so the pipeline
    ///     may retry it after a timeout or a dropped connection too.
    ///   - oversized: what an answer over the size cap becomes, given the answer without its body:
    ///     an error, or that answer to judge by its status; by default an unexpected answer.
    ///   - networkError: the error for a request that got no answer (a timeout, a transport
    ///     failure, an interceptor's refusal); it then names the endpoint.
    @inline(never)
    static func send(
        _ request: HTTPRequest, to endpoint: RequestEndpoint, through pipeline: RequestPipeline,
        readOnly: Bool = false, correlationId: UUID?,
        oversized: ((HTTPResponse) throws(WebSignInError) -> HTTPResponse)? = nil,
        networkError: (any Error) -> WebSignInError
    ) async throws(WebSignInError) -> HTTPResponse {
        do {
            let response = try await pipeline.send(
                request, to: endpoint, readOnly: readOnly, correlationId: correlationId,
                metadata: ["method": request.method])
            pipeline.log(
                .debug, "answer received", ["endpoint": endpoint.name, "status": "\(response.statusCode)"],
                correlationId: correlationId)
            return response
        } catch {
            switch error {
            case .cancelled:
                throw .cancelled(correlationId: correlationId)
            case .timedOut, .noAnswer:
                var failure = networkError(error.underlyingError ?? URLError(.unknown))
                failure.endpoint = endpoint
                throw failure
            case .tooLarge(let response, _):
                guard let oversized else {
                    throw WebSignInError(
                        .unexpectedResponse, note: "The answer is over 1 MiB.", httpStatusCode: response.statusCode,
                        correlationId: correlationId)
                }
                return try oversized(response)
            }
        }
    }
}
