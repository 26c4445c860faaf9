import Foundation

/// Sends ``WireCall``s through the transport and sorts every answer into a success body or a
/// ``WireFailure``; the requests go through the ``RequestPipeline`` shared with the web client.
struct WireClient: Sendable {
    let pipeline: RequestPipeline
    let builder: RequestBuilder

    var log: Log { pipeline.log }

    /// The native endpoints whose requests change nothing at the server: a timeout, a dropped
    /// connection or a 500, 502 or 504 answer may be retried.
    static let readOnly: [Endpoint] = [.signInIntrospect, .registerIntrospect, .resetPasswordPollCompletion]

    /// A successful answer: its JSON object and the response it came in.
    struct Reply: Sendable {
        let object: WireObject
        let response: HTTPResponse

        /// Decodes the answer; an answer missing what the step needs is reported with the
        /// response's status, content type and length.
        func decode<T>(_ body: (Reply) throws(WireFailure) -> T) throws(WireFailure) -> T {
            do {
                return try body(self)
            } catch .unexpected(var answer) {
                answer.status = answer.status ?? response.statusCode
                answer.contentType = answer.contentType ?? response.header("Content-Type")
                answer.bodyLength = response.body.count
                throw .unexpected(answer)
            }
        }
    }

    /// Sends `call` through the pipeline (which retries once where that is safe) and sorts the answer.
    func send(_ call: WireCall, correlationId: UUID) async throws(WireFailure) -> Reply {
        let endpoint = call.endpoint
        let form = builder.form(for: call)
        let response = try await send(
            builder.request(for: call, form: form, correlationId: correlationId),
            to: RequestEndpoint(endpoint.rawValue), readOnly: Self.readOnly.contains(endpoint), fields: form.names,
            correlationId: correlationId)
        do {
            let object = try Self.classify(response)
            log(
                .debug, "answer received", ["endpoint": endpoint.rawValue, "status": "\(response.statusCode)"],
                correlationId: correlationId)
            return Reply(object: object, response: response)
        } catch {
            log(
                .debug, "answer received", Self.metadata(for: error, endpoint: endpoint.rawValue),
                correlationId: correlationId)
            throw error
        }
    }

    /// Sends `request` through the pipeline: the native API's one edge, where a request that got
    /// no answer the SDK can read becomes a ``WireFailure``, for V1 and V2 alike. `fields` are the
    /// names (never the values) of the body's fields, for the log.
    @inline(never)
    func send(
        _ request: HTTPRequest, to endpoint: RequestEndpoint, readOnly: Bool, fields: [String], correlationId: UUID
    ) async throws(WireFailure) -> HTTPResponse {
        do {
            return try await pipeline.send(
                request, to: endpoint, readOnly: readOnly, correlationId: correlationId,
                metadata: ["fields": fields.joined(separator: ",")])
        } catch {
            switch error {
            case .cancelled:
                throw .cancelled
            case .timedOut, .noAnswer:
                throw .transport(error.underlyingError ?? URLError(.unknown), endpoint: endpoint)
            case .tooLarge(let response, let bodyLength):
                var answer = UnexpectedAnswer(
                    status: response.statusCode, contentType: response.header("Content-Type"), problem: .tooLarge,
                    bodyLength: bodyLength)
                answer.retryAfterHeader = response.header("Retry-After")
                log(
                    .debug, "answer received", Self.metadata(for: .unexpected(answer), endpoint: endpoint.name),
                    correlationId: correlationId)
                throw .unexpected(answer)
            }
        }
    }

    /// The largest body the SDK reads (``RequestPipeline/maximumBodySize``).
    static var maximumBodySize: Int { RequestPipeline.maximumBodySize }

    /// Sorts a response: a success object, or the failure it stands for.
    static func classify(_ response: HTTPResponse) throws(WireFailure) -> WireObject {
        let status = response.statusCode
        let contentType = response.header("Content-Type")
        func unexpected(_ problem: UnexpectedAnswer.Problem) -> WireFailure {
            var answer = UnexpectedAnswer(
                status: status, contentType: contentType, problem: problem, bodyLength: response.body.count)
            answer.retryAfterHeader = response.header("Retry-After")
            return .unexpected(answer)
        }
        guard response.body.count <= maximumBodySize else { throw unexpected(.tooLarge) }
        let parsed = response.body.isEmpty ? nil : try? JSONValue.parse(response.body)
        let object = parsed?.objectValue.map(WireObject.init)
        // What is wrong with a body that is not a JSON object, whatever the status.
        let shapeProblem: UnexpectedAnswer.Problem =
            response.body.isEmpty ? .emptyBody : parsed == nil ? .notJSON : .notAnObject
        switch status {
        case 200...299:
            guard let object else { throw unexpected(shapeProblem) }
            if object.string("challenge_type")?.lowercased() == "redirect" {
                throw .redirect(reason: object.text("redirect_reason"))
            }
            return object
        case 429:
            throw unexpected(.status)
        case 400...499:
            guard let object else { throw unexpected(shapeProblem) }
            guard let error = ServerError(status: status, object: object) else {
                throw unexpected(.missingField("error"))
            }
            // An attribute form that names no attribute asks the user to fix nothing: not an answer.
            if error.has(.attributesInvalid), error.invalidAttributes.isEmpty {
                throw unexpected(.emptyList("invalid_attributes"))
            }
            if error.has(.attributesRequired), error.requiredAttributes.isEmpty {
                throw unexpected(.emptyList("required_attributes"))
            }
            throw .server(error)
        default:
            // 1xx, 3xx (never followed) and 5xx: what came back is kept, the body is not.
            throw unexpected(.status)
        }
    }

    static func metadata(for failure: WireFailure, endpoint: String) -> [String: String] {
        var metadata = ["endpoint": endpoint]
        switch failure {
        case .server(let error):
            metadata["status"] = "\(error.status)"
            metadata["error"] = error.error
            if let suberror = error.suberror { metadata["suberror"] = suberror }
            if !error.errorCodes.isEmpty {
                metadata["error_codes"] = error.errorCodes.map(String.init).joined(separator: ",")
            }
        case .unexpected(let answer):
            metadata["problem"] = answer.summary
        case .redirect(let reason):
            metadata["redirect"] = reason ?? ""
        case .cancelled, .transport:
            break
        }
        return metadata
    }
}
