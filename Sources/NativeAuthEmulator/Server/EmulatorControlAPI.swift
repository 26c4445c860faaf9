import Foundation
import LoopbackHTTP
import NativeAuth

/// The control API of an ``EmulatorServer``: JSON calls under `/emulator/v1` that drive the tenant
/// from outside the process. Docs/EmulatorServer.md describes every call; ``ControlRoute`` lists them.
///
/// | call | does |
/// |---|---|
/// | `GET /` or `GET /info` | the authority, client id, tenant id, control base, whether the clock is manual, the tenant's settings |
/// | `GET /users`, `POST /users` | lists users; adds one (`409` when the username is taken) |
/// | `GET /users/{username}`, `DELETE /users/{username}` | reads or removes one user |
/// | `POST /users/{username}/challenge-next-refresh` | ``EmulatedTenant/challengeNextRefresh(of:)`` for one user |
/// | `GET /codes`, `GET /codes/{address}` | every code sent (`?to=` filters); the last code sent to an address |
/// | `POST /force` | forces the answer of the next calls to an endpoint |
/// | `GET /clock`, `POST /clock/advance` | reads or moves the tenant's clock (`409` unless it is a ``ManualClock``) |
/// | `POST /reset` | back to the users and sessions of the server's start; flows, codes and forced answers forgotten |
/// | `GET /snapshot`, `PUT /snapshot` | the tenant's users and refresh tokens as a ``EmulatedTenant/snapshot()``; restores one |
///
/// Errors are JSON too: `{"error":"not_found","message":"…"}` with status 400, 404, 405 or 409.
struct EmulatorControlAPI: Sendable {
    let tenant: EmulatedTenant
    let baseURL: URL
    /// What `reset` returns the tenant to.
    let initialState: Data

    /// A failed call: its status, error code and message.
    struct Failure: Error {
        var status: Int
        var error: String
        var message: String
        var allow: String?

        static func badRequest(_ message: String) -> Failure {
            Failure(status: 400, error: "invalid_request", message: message)
        }

        static func notFound(_ message: String) -> Failure {
            Failure(status: 404, error: "not_found", message: message)
        }

        static func conflict(_ error: String, _ message: String) -> Failure {
            Failure(status: 409, error: error, message: message)
        }
    }

    /// The answer to a control call; quick, and never waits: it runs on the serving thread.
    func answer(_ request: LoopbackHTTPRequest) -> LoopbackHTTPResponse {
        do {
            return try route(request)
        } catch {
            var response = Self.json(
                error.status, ["error": .string(error.error), "message": .string(error.message)])
            if let allow = error.allow { response.headers.append(LoopbackHTTPHeader("Allow", allow)) }
            return response
        }
    }

    // MARK: - Routing

    private func route(_ request: LoopbackHTTPRequest) throws(Failure) -> LoopbackHTTPResponse {
        let rest = request.path.dropFirst(EmulatorServer.controlPath.count)
        var segments: [String] = []
        for segment in rest.split(separator: "/") {
            guard let decoded = segment.removingPercentEncoding else {
                throw .badRequest("The path has a malformed percent-escape.")
            }
            segments.append(decoded)
        }
        let candidates = ControlRoute.allCases.filter { $0.matches(segments) }
        guard !candidates.isEmpty else {
            throw .notFound("No control call at \(request.path); see \(EmulatorServer.controlPath)/info.")
        }
        guard let route = candidates.first(where: { $0.method == request.method }) else {
            var allowed: [String] = []
            for candidate in candidates where !allowed.contains(candidate.method) { allowed.append(candidate.method) }
            let list = allowed.joined(separator: ", ")
            throw Failure(
                status: 405, error: "method_not_allowed",
                message: "\(request.path) answers \(list), not \(request.method).", allow: list)
        }
        switch route {
        case .root, .info: return Self.json(200, info)
        case .listUsers: return listUsers()
        case .createUser: return try createUser(request)
        case .readUser: return try readUser(segments[1])
        case .deleteUser: return try deleteUser(segments[1])
        case .challengeNextRefresh: return try challengeNextRefresh(of: segments[1])
        case .listCodes: return sentCodes(to: Self.queryValue("to", in: request.query))
        case .lastCode: return try lastCode(sentTo: segments[1])
        case .force: return try force(request)
        case .readClock: return Self.json(200, clockObject)
        case .advanceClock: return try advanceClock(request)
        case .readSettings: return Self.json(200, Self.settingsObject(tenant.settings))
        case .changeSettings: return try changeSettings(request)
        case .reset: return reset()
        case .readSnapshot: return snapshot()
        case .putSnapshot, .postSnapshot: return try restore(request)
        }
    }

    // MARK: - Writing

    static let jsonHeaders = [
        LoopbackHTTPHeader("Content-Type", "application/json; charset=utf-8"),
        LoopbackHTTPHeader("Cache-Control", "no-store"),
    ]

    static func json(_ status: Int, _ object: JSONObject) -> LoopbackHTTPResponse {
        LoopbackHTTPResponse(status: status, headers: jsonHeaders, body: Array(object.data))
    }

    static func isoDate(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// The first value of `name` in a query string, percent-decoded (`+` as a space).
    static func queryValue(_ name: String, in query: String?) -> String? {
        guard let query else { return nil }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.first.map(String.init) == name else { continue }
            let raw = parts.count > 1 ? String(parts[1]) : ""
            return raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        }
        return nil
    }
}
