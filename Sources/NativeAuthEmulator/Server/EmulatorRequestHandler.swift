import Foundation
import LoopbackHTTP
import NativeAuth

/// Answers one request an ``EmulatorServer`` received: a control API call, or a request for the
/// tenant, translated to an ``HTTPRequest`` on the tenant's own origin and back.
struct EmulatorRequestHandler: Sendable {
    let tenant: EmulatedTenant
    /// `http://127.0.0.1:PORT`.
    let baseURL: URL
    let latency: Duration
    let control: EmulatorControlAPI
    /// The `Host` values that name the server as they are: `127.0.0.1:PORT`, `localhost:PORT`,
    /// `[::1]:PORT`.
    let knownHosts: Set<String>

    init(tenant: EmulatedTenant, baseURL: URL, latency: Duration, control: EmulatorControlAPI) {
        self.tenant = tenant
        self.baseURL = baseURL
        self.latency = latency
        self.control = control
        var components = URLComponents()
        components.scheme = tenant.authority.scheme
        components.host = tenant.authority.host
        components.port = tenant.authority.port
        tenantOrigin = components.string ?? "https://\(tenant.tenantSubdomain).ciamlogin.com"
        let port = baseURL.port ?? 80
        knownHosts = ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]
    }

    /// The scheme and host the tenant routes on: `https://{subdomain}.ciamlogin.com`.
    let tenantOrigin: String

    /// Headers about the connection rather than the request: not handed to the tenant, and not
    /// copied from its answer (the server writes its own).
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "content-length", "host",
    ]

    /// How the server answers `request`, on its serving thread: at once, without waiting for the
    /// Swift concurrency pool (a control call, or the tenant's answer); after the configured
    /// latency, held by the serving loop's timers; or, when the tenant's own latency holds its
    /// answers on the tenant's clock (which a test may move), by awaiting that clock in a task.
    func answer(_ request: LoopbackHTTPRequest) -> LoopbackHTTPAnswer {
        let path = request.path
        if path == EmulatorServer.controlPath || path.hasPrefix(EmulatorServer.controlPath + "/") {
            return .reply(.respond(control.answer(request)))
        }
        guard let forwarded = tenantRequest(for: request) else {
            return .reply(
                .respond(.text(400, "400 Bad Request: The request target is not a path the tenant can serve.\n")))
        }
        let (tenant, origin) = (tenant, publicOrigin(for: request))
        guard latency > .zero else { return Self.tenantAnswer(tenant, forwarded, publicOrigin: origin) }
        return .delayed(latency) { Self.tenantAnswer(tenant, forwarded, publicOrigin: origin) }
    }

    /// The tenant's answer to `request`: at once, unless the tenant's latency holds it.
    static func tenantAnswer(_ tenant: EmulatedTenant, _ request: HTTPRequest, publicOrigin: String)
        -> LoopbackHTTPAnswer
    {
        if let outcome = tenant.answerAtOnce(request, publicOrigin: publicOrigin) {
            // A forced network fault: the client sees the connection lost in the middle of the answer.
            guard case .response(let response) = outcome else { return .reply(.cutShort(lostAnswer)) }
            return .reply(.respond(loopbackResponse(response)))
        }
        return .awaiting {
            do {
                return .respond(loopbackResponse(try await tenant.send(request, publicOrigin: publicOrigin)))
            } catch {
                // A forced network fault, or serving stopped: the client sees the connection lost
                // in the middle of the answer. (Closing before any byte would make HTTP clients
                // quietly send the request again on a new connection, hiding the fault.)
                return .cutShort(lostAnswer)
            }
        }
    }

    /// The request as the tenant expects it: on its own origin, same path and query, same method,
    /// headers and body, plus `Forwarded` naming the host and scheme the client used.
    func tenantRequest(for request: LoopbackHTTPRequest) -> HTTPRequest? {
        guard request.target.hasPrefix("/"), let url = URL(string: tenantOrigin + request.target) else { return nil }
        var headers: [String: String] = [:]
        /// The name each header is kept under (the case of its first line), by lowercased name.
        var keptNames: [String: String] = [:]
        for header in request.headers {
            let name = header.name.lowercased()
            guard !Self.hopByHop.contains(name), name != "forwarded" else { continue }
            if let existing = keptNames[name] {
                headers[existing] = (headers[existing] ?? "") + ", " + header.value
            } else {
                keptNames[name] = header.name
                headers[header.name] = header.value
            }
        }
        headers["Forwarded"] = "host=\"\(clientHost(for: request))\";proto=http"
        return HTTPRequest(
            method: request.method, url: url, headers: headers, body: request.body.isEmpty ? nil : Data(request.body))
    }

    /// The host and port the client reached the server at: its `Host` header when that names a
    /// loopback host on the server's port (`127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT`), the
    /// server's own address otherwise. A client cannot make the tenant name another host.
    func clientHost(for request: LoopbackHTTPRequest) -> String {
        let own = "\(baseURL.host ?? "127.0.0.1"):\(baseURL.port ?? 80)"
        // What clients send: a loopback host on the server's port, read without URLComponents.
        if let given = request.header("Host"), knownHosts.contains(given) { return given }
        guard let given = request.header("Host")?.trimmingCharacters(in: .whitespaces).lowercased(),
            let components = URLComponents(string: "http://" + given), let host = components.host,
            components.port == baseURL.port, components.path.isEmpty, components.user == nil,
            components.query == nil, components.fragment == nil,
            ["127.0.0.1", "localhost", "[::1]", "::1"].contains(host)
        else { return own }
        return given
    }

    /// `http://{clientHost}`: the origin the tenant writes its web endpoints' URLs on. It goes to
    /// the tenant alongside the request rather than in a header, so it is the server's word alone:
    /// a `Forwarded` header a client sends is dropped, and one in an in-process request is ignored.
    func publicOrigin(for request: LoopbackHTTPRequest) -> String {
        "http://" + clientHost(for: request)
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
