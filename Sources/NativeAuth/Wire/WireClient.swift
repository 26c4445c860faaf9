import Foundation

/// Sends ``WireCall``s through the transport and sorts every answer into a success body or a
/// ``WireFailure``. The one place where transport errors are wrapped.
struct WireClient: Sendable {
    let transport: any HTTPTransport
    let builder: RequestBuilder
    let log: Log
    let retry: RetryPolicy
    /// The SDK's own deadline for one request, whatever the transport does.
    let requestTimeout: TimeInterval

    /// A little above the transport's own timeout, so the transport reports first when it can.
    static func defaultTimeout(for transport: any HTTPTransport) -> TimeInterval {
        ((transport as? URLSessionTransport)?.timeout ?? 30) + 5
    }

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

    /// Sends `call`, retrying once where ``RetryPolicy`` says a retry is safe.
    func send(_ call: WireCall, correlationId: UUID) async throws(WireFailure) -> Reply {
        var attempt = 1
        while true {
            let outcome: Result<Reply, WireFailure>
            do {
                outcome = .success(try await sendOnce(call, correlationId: correlationId))
            } catch {
                outcome = .failure(error)
            }
            guard case .failure(let failure) = outcome else { return try outcome.get() }
            guard attempt < retry.maximumAttempts, let delay = retry.delay(after: failure, endpoint: call.endpoint)
            else {
                throw failure
            }
            log(
                .debug, "retrying", ["endpoint": call.endpoint.rawValue, "after_seconds": "\(delay)"],
                correlationId: correlationId)
            do {
                try await retry.clock.sleep(seconds: delay)
            } catch {
                throw .cancelled
            }
            attempt += 1
        }
    }

    private func sendOnce(_ call: WireCall, correlationId: UUID) async throws(WireFailure) -> Reply {
        let endpoint = call.endpoint.rawValue
        guard !Task.isCancelled else {
            log(.debug, "request not sent: task cancelled", ["endpoint": endpoint], correlationId: correlationId)
            throw .cancelled
        }
        let form = builder.form(for: call)
        let request = builder.request(for: call, form: form, correlationId: correlationId)
        log(
            .debug, "request sent", ["endpoint": endpoint, "fields": form.names.joined(separator: ",")],
            correlationId: correlationId)
        let response: HTTPResponse
        do {
            if let urlSession = transport as? URLSessionTransport {
                // The default transport answers through a callback: no task between it and the caller.
                response = try await Deadline.run(seconds: requestTimeout) { complete in
                    urlSession.start(request, completion: complete)
                }
            } else {
                response = try await Deadline.run(seconds: requestTimeout) { [transport] in
                    try await transport.send(request)
                }
            }
        } catch {
            if case Deadline.Failure.timedOut = error {
                log(
                    .warning, "no answer within the request deadline",
                    ["endpoint": endpoint, "seconds": "\(requestTimeout)"], correlationId: correlationId)
                throw .transport(URLError(.timedOut), endpoint: call.endpoint)
            }
            if error is Deadline.Failure || error is CancellationError || Task.isCancelled
                || (error as? URLError)?.code == .cancelled
            {
                log(.debug, "request cancelled", ["endpoint": endpoint], correlationId: correlationId)
                throw .cancelled
            }
            log(
                .warning, "no answer from the server",
                ["endpoint": endpoint, "error": Self.describe(error)], correlationId: correlationId)
            throw .transport(error, endpoint: call.endpoint)
        }
        do {
            let object = try Self.classify(response)
            log(
                .debug, "answer received", ["endpoint": endpoint, "status": "\(response.statusCode)"],
                correlationId: correlationId)
            return Reply(object: object, response: response)
        } catch {
            log(.debug, "answer received", Self.metadata(for: error, endpoint: endpoint), correlationId: correlationId)
            throw error
        }
    }

    /// The largest body the SDK reads: every answer of the API is a few kilobytes, so anything
    /// over this is refused before it is parsed.
    static let maximumBodySize = 1 << 20

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
                throw .redirect(reason: object.string("redirect_reason").map(ServerError.capped))
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

    static func describe(_ error: any Error) -> String {
        if let urlError = error as? URLError { return "URLError \(urlError.code.rawValue)" }
        return String(describing: type(of: error))
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
