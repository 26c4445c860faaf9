import Foundation
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
    }

    func answer(_ request: LoopbackHTTPRequest) async -> LoopbackHTTPResponse {
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

    // MARK: - Users

    private func listUsers() -> LoopbackHTTPResponse {
        Self.json(200, ["users": .array(tenant.users.map { .object(Self.userObject($0)) })])
    }

    private func readUser(_ username: String) throws(Failure) -> LoopbackHTTPResponse {
        guard let user = tenant.user(named: username) else { throw .notFound("No user is named \(username).") }
        return Self.json(200, Self.userObject(user))
    }

    private func deleteUser(_ username: String) throws(Failure) -> LoopbackHTTPResponse {
        guard tenant.user(named: username) != nil else { throw .notFound("No user is named \(username).") }
        tenant.removeUser(named: username)
        return LoopbackHTTPResponse(status: 204)
    }

    private func createUser(_ request: LoopbackHTTPRequest) throws(Failure) -> LoopbackHTTPResponse {
        let body = try ControlFields(request: request)
        let username = try body.string("username")
        var methods: [EmulatedAuthMethod] = []
        for (index, element) in try body.array("mfaMethods").enumerated() {
            let method = try ControlFields(element, path: "mfaMethods[\(index)]")
            methods.append(
                EmulatedAuthMethod(
                    id: try method.string("id"), channel: try method.string("channel"),
                    address: try method.string("address")))
        }
        let user = EmulatedUser(
            username: username, password: try body.optionalString("password"),
            attributes: try body.stringMap("attributes"), mfaMethods: methods,
            requiresMethodRegistration: try body.bool("requiresMethodRegistration"))
        guard tenant.user(named: username) == nil else {
            throw Failure(status: 409, error: "user_exists", message: "A user named \(username) exists already.")
        }
        tenant.addUser(user)
        return Self.json(201, Self.userObject(user))
    }

    /// A user as the control API shows it: everything but the password, of which only whether
    /// there is one.
    static func userObject(_ user: EmulatedUser) -> JSONObject {
        var attributes = JSONObject()
        for (name, value) in user.attributes.sorted(by: { $0.key < $1.key }) { attributes[name] = .string(value) }
        let methods = user.mfaMethods.map { method -> JSON in
            .object(["id": .string(method.id), "channel": .string(method.channel), "address": .string(method.address)])
        }
        return [
            "username": .string(user.username),
            "hasPassword": .bool(user.password != nil),
            "attributes": .object(attributes),
            "mfaMethods": .array(methods),
            "requiresMethodRegistration": .bool(user.requiresMethodRegistration),
        ]
    }

    // MARK: - Codes

    private func sentCodes(to address: String?) -> LoopbackHTTPResponse {
        let codes = tenant.outbox.filter { sent in address.map { sent.to.lowercased() == $0.lowercased() } ?? true }
        return Self.json(200, ["codes": .array(codes.map { .object(Self.codeObject($0)) })])
    }

    private func lastCode(sentTo address: String) throws(Failure) -> LoopbackHTTPResponse {
        guard let sent = tenant.outbox.last(where: { $0.to.lowercased() == address.lowercased() }) else {
            throw .notFound("No code was sent to \(address).")
        }
        return Self.json(200, Self.codeObject(sent))
    }

    private static func codeObject(_ sent: SentCode) -> JSONObject {
        [
            "to": .string(sent.to), "code": .string(sent.code), "purpose": .string(sent.purpose),
            "sentAt": .string(isoDate(sent.sentAt)),
        ]
    }

    // MARK: - Forced answers

    private func force(_ request: LoopbackHTTPRequest) throws(Failure) -> LoopbackHTTPResponse {
        let body = try ControlFields(request: request)
        let name = try body.string("endpoint")
        let trimmed = name.hasPrefix("/") ? String(name.dropFirst()) : name
        guard
            let endpoint = EmulatorEndpoint.allCases.first(where: {
                $0.rawValue == trimmed || String(describing: $0) == trimmed
            })
        else {
            let known = EmulatorEndpoint.allCases.map(\.rawValue).joined(separator: ", ")
            throw .badRequest("endpoint \(name) is not one of: \(known).")
        }
        let times = try body.optionalInteger("times") ?? 1
        guard (1...1000).contains(times) else { throw .badRequest("times must be from 1 to 1000.") }
        let answer = try Self.forcedAnswer(body.value("answer"), path: "answer")
        tenant.force(answer, on: endpoint, times: times)
        return Self.json(200, ["endpoint": .string(endpoint.rawValue), "times": .integer(times)])
    }

    /// A forced answer from its JSON: a kind name (`"networkFailure"`) or an object with `kind`
    /// and the kind's fields.
    static func forcedAnswer(_ value: JSON?, path: String) throws(Failure) -> ForcedAnswer {
        let fields: ControlFields
        let kind: String
        switch value {
        case .string(let name)?:
            fields = ControlFields(JSONObject(), path: path)
            kind = name
        case .object(let object)?:
            fields = ControlFields(object, path: path)
            kind = try fields.string("kind")
        default:
            throw .badRequest("\(path) is missing, or neither a kind name nor an object with a kind.")
        }
        switch kind {
        case "error":
            return .error(
                try fields.string("error"), suberror: try fields.optionalString("suberror"),
                codes: try fields.array("codes").enumerated().map { (index, code) throws(Failure) -> Int in
                    guard case .integer(let number) = code else {
                        throw .badRequest("\(path).codes[\(index)] is not a whole number.")
                    }
                    return number
                },
                description: try fields.optionalString("description"),
                status: try fields.status("status", default: 400))
        case "redirect":
            return .redirect(
                reason: try fields.optionalString("reason") ?? "The tenant requires a browser-based sign-in.")
        case "raw":
            return .raw(
                status: try fields.status("status", default: 200), headers: try fields.stringMap("headers"),
                body: Data((try fields.optionalString("body") ?? "").utf8))
        case "networkFailure": return .networkFailure
        case "timeout": return .timeout
        case "cannotConnect": return .cannotConnect
        case "lostAfterProcessing": return .lostAfterProcessing
        case "tooManyRequests": return .tooManyRequests(retryAfter: try fields.optionalInteger("retryAfter"))
        case "serviceUnavailable": return .serviceUnavailable(retryAfter: try fields.optionalInteger("retryAfter"))
        case "truncatedAfterProcessing":
            return .truncatedAfterProcessing(keepingBytes: try fields.optionalInteger("keepingBytes") ?? 0)
        default:
            throw .badRequest(
                "\(path) kind \(kind) is not one of: error, redirect, raw, networkFailure, timeout, cannotConnect, "
                    + "lostAfterProcessing, tooManyRequests, serviceUnavailable, truncatedAfterProcessing.")
        }
    }

    // MARK: - Clock

    private var clockObject: JSONObject {
        let now = tenant.clock.now()
        return [
            "now": .string(Self.isoDate(now)), "epochSeconds": .double(now.timeIntervalSince1970),
            "manual": .bool(tenant.clock is ManualClock),
        ]
    }

    private func advanceClock(_ request: LoopbackHTTPRequest) throws(Failure) -> LoopbackHTTPResponse {
        guard let clock = tenant.clock as? ManualClock else {
            throw Failure(
                status: 409, error: "clock_not_manual",
                message:
                    "The tenant runs on the system clock, which cannot be moved; start the server with a "
                    + "ManualClock (nativeauth serve --manual-clock) to advance time.")
        }
        let seconds = try ControlFields(request: request).number("seconds")
        guard seconds.isFinite, (0...(86_400 * 3660)).contains(seconds) else {
            throw .badRequest("seconds must be a number from 0 to 316224000 (ten years).")
        }
        clock.advance(by: seconds)
        return Self.json(200, clockObject)
    }

    // MARK: - Reset and snapshots

    private func reset() -> LoopbackHTTPResponse {
        tenant.reset()
        try? tenant.restore(from: initialState)  // taken of this tenant, so it always fits
        return Self.json(200, ["users": .integer(tenant.users.count)])
    }

    private func snapshot() -> LoopbackHTTPResponse {
        LoopbackHTTPResponse(status: 200, headers: Self.jsonHeaders, body: Array(tenant.snapshot()))
    }

    private func restore(_ request: LoopbackHTTPRequest) throws(Failure) -> LoopbackHTTPResponse {
        do throws(EmulatorSnapshotError) {
            try tenant.restore(from: Data(request.body))
        } catch {
            let status = error.kind == .otherTenant ? 409 : 400
            throw Failure(status: status, error: "snapshot_\(error.kind.rawValue)", message: error.reason)
        }
        return Self.json(200, ["users": .integer(tenant.users.count)])
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

/// The fields of one JSON object of a control call, read with errors that say which field is wrong.
struct ControlFields {
    let object: JSONObject
    let prefix: String

    init(_ object: JSONObject, path: String) {
        self.object = object
        self.prefix = path
    }

    init(_ value: JSON, path: String) throws(EmulatorControlAPI.Failure) {
        guard case .object(let object) = value else { throw .badRequest("\(path) is not an object.") }
        self.init(object, path: path)
    }

    /// The body of `request`, which must be one JSON object.
    init(request: LoopbackHTTPRequest) throws(EmulatorControlAPI.Failure) {
        guard !request.body.isEmpty else { throw .badRequest("The call needs a JSON object as its body.") }
        let text = String(decoding: request.body, as: UTF8.self)
        let value: JSON
        do throws(JSONParser.Failure) {
            value = try JSONParser.parse(text)
        } catch {
            throw .badRequest("The body is not JSON (error at byte \(error.offset)).")
        }
        guard case .object(let object) = value else { throw .badRequest("The body is not a JSON object.") }
        self.init(object, path: "")
    }

    private func path(_ key: String) -> String {
        prefix.isEmpty ? key : "\(prefix).\(key)"
    }

    func value(_ key: String) -> JSON? {
        object[key]
    }

    /// A required, non-empty string.
    func string(_ key: String) throws(EmulatorControlAPI.Failure) -> String {
        guard case .string(let value)? = object[key], !value.isEmpty else {
            throw .badRequest("\(path(key)) is missing or not a non-empty string.")
        }
        return value
    }

    func optionalString(_ key: String) throws(EmulatorControlAPI.Failure) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw .badRequest("\(path(key)) is not a string.")
        }
    }

    /// `false` when absent.
    func bool(_ key: String) throws(EmulatorControlAPI.Failure) -> Bool {
        switch object[key] {
        case nil, .null?: return false
        case .bool(let value)?: return value
        default: throw .badRequest("\(path(key)) is not true or false.")
        }
    }

    func optionalInteger(_ key: String) throws(EmulatorControlAPI.Failure) -> Int? {
        switch object[key] {
        case nil, .null?: return nil
        case .integer(let value)?: return value
        case .double(let value)? where value == value.rounded() && abs(value) < 1e15: return Int(value)
        default: throw .badRequest("\(path(key)) is not a whole number.")
        }
    }

    /// A required number.
    func number(_ key: String) throws(EmulatorControlAPI.Failure) -> Double {
        switch object[key] {
        case .integer(let value)?: return Double(value)
        case .double(let value)?: return value
        default: throw .badRequest("\(path(key)) is missing or not a number.")
        }
    }

    /// An HTTP status from 200 to 599, or `fallback` when absent.
    func status(_ key: String, default fallback: Int) throws(EmulatorControlAPI.Failure) -> Int {
        let status = try optionalInteger(key) ?? fallback
        guard (200...599).contains(status) else { throw .badRequest("\(path(key)) must be from 200 to 599.") }
        return status
    }

    /// An array, empty when absent.
    func array(_ key: String) throws(EmulatorControlAPI.Failure) -> [JSON] {
        switch object[key] {
        case nil, .null?: return []
        case .array(let values)?: return values
        default: throw .badRequest("\(path(key)) is not an array.")
        }
    }

    /// An object of string values, empty when absent.
    func stringMap(_ key: String) throws(EmulatorControlAPI.Failure) -> [String: String] {
        switch object[key] {
        case nil, .null?:
            return [:]
        case .object(let map)?:
            var result: [String: String] = [:]
            for pair in map.pairs {
                guard case .string(let value) = pair.value else {
                    throw .badRequest("\(path(key)).\(pair.key) is not a string.")
                }
                result[pair.key] = value
            }
            return result
        default:
            throw .badRequest("\(path(key)) is not an object.")
        }
    }
}
