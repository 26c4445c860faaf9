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

    /// The members of an answer that must be a JSON object with a `success` status (one reader
    /// for the token, device, pushed-request and registration answers). An OAuth error answer is
    /// its typed error; a bare 401 or 403 is ``WebSignInError/isConfigurationError`` with
    /// `refusal` when given; 429 and 5xx are ``WebSignInError/isServerError``; a redirect, any
    /// other status, an empty body or one that is not an object is
    /// ``WebSignInError/isUnexpectedResponse``. Every note starts with `prefix` when given.
    @inline(never)
    static func object(
        of response: HTTPResponse, from endpoint: String, success: ClosedRange<Int> = 200...299,
        refusal: String? = nil, unexplained: String = "The error answer has no 'error'.", prefix: String? = nil,
        correlationId: UUID?
    ) throws(WebSignInError) -> [String: JSONValue] {
        let status = response.statusCode
        func failure(_ code: WebSignInError.Code, _ note: String?) -> WebSignInError {
            let note = prefix.map { prefix in note.map { prefix + " " + $0 } ?? prefix } ?? note
            return WebSignInError(code, note: note, httpStatusCode: status, correlationId: correlationId)
        }
        let members: [String: JSONValue]?
        do {
            members = try Self.members(of: response, success: { success.contains($0) }, correlationId: correlationId)
        } catch {
            throw prefix.map { error.noting($0) } ?? error
        }
        guard success.contains(status) else {
            switch status {
            case 401, 403:
                throw refusal.map { failure(.configuration, $0) } ?? failure(.unexpectedResponse, unexplained)
            case 429, 500...599: throw failure(.server, nil)
            case 300...399: throw failure(.unexpectedResponse, "The \(endpoint) redirected (never followed).")
            default: throw failure(.unexpectedResponse, unexplained)
            }
        }
        guard let members else {
            throw failure(
                .unexpectedResponse, response.body.isEmpty ? "The answer is empty." : "The answer is not a JSON object."
            )
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

    /// What a request that got no usable answer fails with, and what an answer over the size cap
    /// becomes.
    enum Failures {
        /// A network error naming the transport's failure; an answer over the cap is unexpected.
        case exchange
        /// Discovery failed: the network, or a metadata document over the cap. An answer over the
        /// cap with another status is judged by its status (a 404 still falls back to RFC 8414).
        case discovery
        /// The provider's keys could not be fetched (a network failure, not a refused token: a
        /// refresh keeps its account), or are over the cap and so not a usable JWK Set.
        case keys
        /// Revocation is judged by its status (RFC 7009 §2.2): an oversized body changes nothing.
        case revocation

        /// The error for a request that got no answer (a timeout, a transport failure, an
        /// interceptor's refusal).
        func network(_ error: any Error, correlationId: UUID?) -> WebSignInError {
            switch self {
            case .exchange, .revocation:
                WebSignInError(.network, correlationId: correlationId, underlyingError: error)
            case .discovery:
                WebSignInError(.discoveryFailed(.network), underlyingError: error)
            case .keys:
                WebSignInError(.network, note: "The provider's keys could not be fetched.", underlyingError: error)
            }
        }

        /// What an answer over the size cap becomes, given the answer without its body: an
        /// error, or that answer to judge by its status.
        func oversized(_ response: HTTPResponse, correlationId: UUID?) throws(WebSignInError) -> HTTPResponse {
            switch self {
            case .exchange:
                throw WebSignInError(
                    .unexpectedResponse, note: "The answer is over 1 MiB.", httpStatusCode: response.statusCode,
                    correlationId: correlationId)
            case .discovery:
                guard !(200...299).contains(response.statusCode) else {
                    throw WebSignInError(.discoveryFailed(.tooLarge))
                }
                return response
            case .keys:
                throw WebHTTP.unusableKeys
            case .revocation:
                return response
            }
        }
    }

    /// The provider's keys are not a usable JWK Set: the ID token's signature cannot be checked.
    static var unusableKeys: WebSignInError {
        WebSignInError(.invalidIDToken(.signature), note: "The provider's keys are not a usable JWK Set.")
    }

    /// `request` with a DPoP proof when `dpop` is given
    /// (``DPoPSigner/sendToTokenEndpoint(_:to:through:correlationId:failures:renewBody:)``), plainly
    /// otherwise. One await for the callers: an await in each branch there would repeat the code
    /// after it.
    static func send(
        _ request: HTTPRequest, to endpoint: RequestEndpoint, through pipeline: RequestPipeline, correlationId: UUID?,
        failures: Failures = .exchange, dpop: DPoPSigner?, renewBody: (() async throws(WebSignInError) -> Data?)?
    ) async throws(WebSignInError) -> HTTPResponse {
        guard let dpop else {
            return try await send(
                request, to: endpoint, through: pipeline, correlationId: correlationId, failures: failures)
        }
        return try await dpop.sendToTokenEndpoint(
            request, to: endpoint, through: pipeline, correlationId: correlationId, failures: failures,
            renewBody: renewBody)
    }

    /// Sends `request` to `endpoint` through `pipeline` and returns the answer, whatever its status.
    ///
    /// - Parameters:
    ///   - readOnly: the request changes nothing at the provider (discovery, keys), so the pipeline
    ///     may retry it after a timeout or a dropped connection too.
    ///   - failures: the errors for a request that got no answer (which then name the endpoint),
    ///     and what an answer over the size cap becomes.
    @inline(never)
    static func send(
        _ request: HTTPRequest, to endpoint: RequestEndpoint, through pipeline: RequestPipeline,
        readOnly: Bool = false, correlationId: UUID?, failures: Failures = .exchange
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
                var failure = failures.network(
                    error.underlyingError ?? URLError(.unknown), correlationId: correlationId)
                failure.endpoint = endpoint
                throw failure
            case .tooLarge(let response, _):
                return try failures.oversized(response, correlationId: correlationId)
            }
        }
    }
}

extension DPoPSigner {
    /// Sends `request` to a token-style endpoint (token, revocation, authorization challenge)
    /// through the web client's HTTP edge, with a proof, retried on a nonce challenge or a clock skew
    /// as `send(_:accessToken:refused:isNonceChallenge:isProofRefusal:through:)` does.
    /// One function for the three endpoints, so the proof's loop is compiled once for them.
    ///
    /// With `renewBody`, a second or third attempt carries the body it makes rather than the first
    /// one's: a client assertion is signed again (a new `jti`), since a provider may refuse one it
    /// has seen (RFC 7523 §3, item 7).
    @inline(never)
    func sendToTokenEndpoint(
        _ request: HTTPRequest, to endpoint: RequestEndpoint, through pipeline: RequestPipeline, correlationId: UUID?,
        failures: WebHTTP.Failures = .exchange, renewBody: (() async throws(WebSignInError) -> Data?)? = nil
    ) async throws(WebSignInError) -> HTTPResponse {
        var attempts = 0
        return try await send(
            request, refused: { WebSignInError($0, correlationId: correlationId) },
            isNonceChallenge: Self.isTokenEndpointNonceChallenge, isProofRefusal: Self.isTokenEndpointProofRefusal
        ) { (proved) async throws(WebSignInError) in
            attempts += 1
            var sent = proved
            if attempts > 1, let renewBody { sent.body = try await renewBody() }
            return try await WebHTTP.send(
                sent, to: endpoint, through: pipeline, correlationId: correlationId, failures: failures)
        }
    }
}
