import Foundation
import NativeAuth

/// Answers one request an ``EmulatorServer`` received: a control API call, or a request for the
/// tenant, translated to an ``HTTPRequest`` on the tenant's own origin and back.
struct EmulatorRequestHandler: Sendable {
    let tenant: EmulatedTenant
    /// `http://127.0.0.1:PORT`.
    let baseURL: URL
    let latency: Duration
    let control: EmulatorControlAPI

    /// The scheme and host the tenant routes on: `https://{subdomain}.ciamlogin.com`.
    var tenantOrigin: String {
        var components = URLComponents()
        components.scheme = tenant.authority.scheme
        components.host = tenant.authority.host
        components.port = tenant.authority.port
        return components.string ?? "https://\(tenant.tenantSubdomain).ciamlogin.com"
    }

    /// Headers about the connection rather than the request: not handed to the tenant, and not
    /// copied from its answer (the server writes its own).
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "content-length", "host",
    ]

    func answer(_ request: LoopbackHTTPRequest) async -> LoopbackHTTPReply {
        let path = request.path
        if path == EmulatorServer.controlPath || path.hasPrefix(EmulatorServer.controlPath + "/") {
            return .respond(await control.answer(request))
        }
        guard let forwarded = tenantRequest(for: request) else {
            return .respond(.text(400, "400 Bad Request: The request target is not a path the tenant can serve.\n"))
        }
        if latency > .zero {
            do {
                try await Task.sleep(for: latency)
            } catch {
                return .drop  // serving stopped while waiting
            }
        }
        do {
            return .respond(Self.loopbackResponse(try await tenant.send(forwarded)))
        } catch {
            // A forced network fault, or serving stopped: the client sees the connection lost in
            // the middle of the answer. (Closing before any byte would make HTTP clients quietly
            // send the request again on a new connection, hiding the fault.)
            return .cutShort(Self.lostAnswer)
        }
    }

    /// The request as the tenant expects it: on its own origin, same path and query, same method,
    /// headers and body, plus `Forwarded` naming the host and scheme the client used.
    func tenantRequest(for request: LoopbackHTTPRequest) -> HTTPRequest? {
        guard request.target.hasPrefix("/"), let url = URL(string: tenantOrigin + request.target) else { return nil }
        var headers: [String: String] = [:]
        for header in request.headers {
            let name = header.name.lowercased()
            guard !Self.hopByHop.contains(name), name != "forwarded" else { continue }
            if let existing = headers.keys.first(where: { $0.caseInsensitiveCompare(header.name) == .orderedSame }) {
                headers[existing] = (headers[existing] ?? "") + ", " + header.value
            } else {
                headers[header.name] = header.value
            }
        }
        let host = request.header("Host") ?? baseURL.host.map { "\($0):\(baseURL.port ?? 80)" } ?? "127.0.0.1"
        headers["Forwarded"] = "host=\"\(host)\";proto=http"
        return HTTPRequest(
            method: request.method, url: url, headers: headers, body: request.body.isEmpty ? nil : Data(request.body))
    }

    /// The answer whose head is written, and body never, when the tenant answers with a network fault.
    static let lostAnswer = LoopbackHTTPResponse(
        status: 200, headers: [LoopbackHTTPHeader("Content-Type", "application/json; charset=utf-8")],
        body: Array(#"{"error":"connection_lost"}"#.utf8))

    /// The tenant's answer as written on the wire. A status that is not a final HTTP status
    /// (which only a forced raw answer can give) becomes `502`.
    static func loopbackResponse(_ response: HTTPResponse) -> LoopbackHTTPResponse {
        guard (200...999).contains(response.statusCode) else {
            return .text(
                502,
                "502 Bad Gateway: The tenant answered with status \(response.statusCode), which HTTP cannot carry.\n")
        }
        let headers =
            response.headers
            .filter { !hopByHop.contains($0.key.lowercased()) }
            .sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { LoopbackHTTPHeader($0.key, $0.value) }
        return LoopbackHTTPResponse(status: response.statusCode, headers: headers, body: Array(response.body))
    }
}
