import Foundation
import LoopbackHTTP
import NativeAuth

/// The control API of an ``EmulatorServer``: JSON calls under `/emulator/v1` that drive the tenant
/// from outside the process. Docs/Emulator.md describes every call.
///
/// | call | does |
/// |---|---|
/// | `GET /` or `GET /info` | the authority, client id, tenant id, control base, whether the clock is manual |
/// | `GET /users`, `POST /users` | lists users; adds one (`409` when the username is taken) |
/// | `GET /users/{username}`, `DELETE /users/{username}` | reads or removes one user |
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
        let method = request.method
        func allow(_ allowed: String...) throws(Failure) {
            guard allowed.contains(method) else {
                throw Failure(
                    status: 405, error: "method_not_allowed",
                    message: "\(request.path) answers \(allowed.joined(separator: ", ")), not \(method).",
                    allow: allowed.joined(separator: ", "))
            }
        }
        switch segments.first {
        case nil, "info":
            guard segments.count <= 1 else { break }
            try allow("GET")
            return Self.json(200, info)
        case "users":
            if segments.count == 1 {
                try allow("GET", "POST")
                return method == "GET" ? listUsers() : try createUser(request)
            }
            guard segments.count == 2 else { break }
            try allow("GET", "DELETE")
            return method == "GET" ? try readUser(segments[1]) : try deleteUser(segments[1])
        case "codes":
            try allow("GET")
            if segments.count == 1 { return sentCodes(to: Self.queryValue("to", in: request.query)) }
            guard segments.count == 2 else { break }
            return try lastCode(sentTo: segments[1])
        case "force":
            guard segments.count == 1 else { break }
            try allow("POST")
            return try force(request)
        case "clock":
            if segments.count == 1 {
                try allow("GET")
                return Self.json(200, clockObject)
            }
            guard segments.count == 2, segments[1] == "advance" else { break }
            try allow("POST")
            return try advanceClock(request)
        case "reset":
            guard segments.count == 1 else { break }
            try allow("POST")
            return reset()
        case "snapshot":
            guard segments.count == 1 else { break }
            try allow("GET", "PUT", "POST")
            return method == "GET" ? snapshot() : try restore(request)
        default:
            break
        }
        throw .notFound("No control call at \(request.path); see \(EmulatorServer.controlPath)/info.")
    }

    // MARK: - Info

    private var info: JSONObject {
        let authority = baseURL.absoluteString + tenant.authority.path
        return [
            "authority": .string(authority),
            "clientId": .string(tenant.clientId),
            "tenantId": .string(tenant.tenantId),
            "tenantSubdomain": .string(tenant.tenantSubdomain),
            "control": .string(baseURL.absoluteString + EmulatorServer.controlPath),
            "manualClock": .bool(tenant.clock is ManualClock),
        ]
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
