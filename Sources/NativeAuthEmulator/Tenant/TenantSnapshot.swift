import Foundation

/// A tenant's lasting state: its users and its refresh tokens, as ``EmulatedTenant/snapshot()``
/// writes them and ``EmulatedTenant/restore(from:)`` reads them.
///
/// The JSON form, written by the emulator's own writer so the bytes are stable:
///
/// ```json
/// {"format":2,"tenantSubdomain":"contoso","clientId":"emulator-client-id",
///  "users":[{"username":"ada@contoso.com","password":"…","attributes":{"displayName":"Ada"},
///            "mfaMethods":[{"id":"sms-1","channel":"sms","address":"+15551234567"}],
///            "requiresMethodRegistration":false,"passwordHistory":[],"requiresBrowser":false}],
///  "refreshTokens":[{"token":"1.…","username":"ada@contoso.com","expiresAt":1807776000,"revoked":false,
///                    "signsIDTokens":false}]}
/// ```
///
/// Format 2 added a user's `requiresBrowser` and a refresh token's `signsIDTokens` (it came from a
/// browser sign-in); format 1 snapshots, which have neither, still load (both `false`). A refresh
/// token bound to a DPoP key (RFC 9449 §5) has `dpopKey`, the key's JWK thumbprint; it is written
/// only for bound tokens, so snapshots without DPoP are as before. A refresh token of a browser or
/// first-party sign-in has `authTime` (seconds since 1970) and `acr`, the authentication its
/// refreshes keep (RFC 9470 §6.1); both or neither, written only when known.
///
/// Users are sorted by lowercased username, attributes by name, refresh tokens by token, so the
/// same state always gives the same bytes. `expiresAt` is in seconds since 1970 on the tenant's
/// clock (server time, ``EmulatorSettings/serverClockOffset`` included).
struct TenantSnapshot: Sendable, Equatable {
    /// The format this emulator writes, and the newest it reads.
    static let currentFormat = 2

    /// The subdomain and client id of the tenant the snapshot was taken of, when known.
    var tenantSubdomain: String?
    var clientId: String?
    /// Users by lowercased username.
    var users: [String: EmulatedUser]
    /// Refresh tokens by token.
    var refreshTokens: [String: RefreshTokenRecord]

    /// The lasting state of `state`: every user, and every refresh token that has not expired
    /// (revoked ones included, so they stay revoked).
    init(of state: TenantState) {
        let now = state.serverNow
        tenantSubdomain = state.environment.tenantSubdomain
        clientId = state.environment.clientId
        users = state.users
        refreshTokens = state.refreshTokens.filter { now < $0.value.expiresAt }
    }

    // MARK: - Writing

    var json: JSONObject {
        var object: JSONObject = ["format": .integer(Self.currentFormat)]
        if let tenantSubdomain { object["tenantSubdomain"] = .string(tenantSubdomain) }
        if let clientId { object["clientId"] = .string(clientId) }
        object["users"] = .array(users.sorted { $0.key < $1.key }.map { Self.json(for: $0.value) })
        object["refreshTokens"] = .array(
            refreshTokens.sorted { $0.key < $1.key }.map { Self.json(for: $0.value, token: $0.key) })
        return object
    }

    private static func json(for user: EmulatedUser) -> JSON {
        var attributes = JSONObject()
        for (name, value) in user.attributes.sorted(by: { $0.key < $1.key }) {
            attributes[name] = .string(value)
        }
        let methods = user.mfaMethods.map { method -> JSON in
            .object(["id": .string(method.id), "channel": .string(method.channel), "address": .string(method.address)])
        }
        let object: JSONObject = [
            "username": .string(user.username),
            "password": user.password.map(JSON.string) ?? .null,
            "attributes": .object(attributes),
            "mfaMethods": .array(methods),
            "requiresMethodRegistration": .bool(user.requiresMethodRegistration),
            "passwordHistory": .array(user.passwordHistory.map(JSON.string)),
            "requiresBrowser": .bool(user.requiresBrowser),
        ]
        return .object(object)
    }

    private static func json(for record: RefreshTokenRecord, token: String) -> JSON {
        // JSON has no infinity: a token that never expires is written as expiring in the distant future.
        let expiresAt = min(record.expiresAt.timeIntervalSince1970, Date.distantFuture.timeIntervalSince1970)
        var object: JSONObject = [
            "token": .string(token),
            "username": .string(record.username),
            "expiresAt": .double(expiresAt),
            "revoked": .bool(record.revoked),
            "signsIDTokens": .bool(record.signsIDTokens),
        ]
        if let dpopKey = record.dpopKey { object["dpopKey"] = .string(dpopKey) }
        if let authentication = record.authentication {
            object["authTime"] = .integer(authentication.seconds)
            object["acr"] = .string(authentication.acr)
        }
        return .object(object)
    }

    // MARK: - Reading

    /// Reads a snapshot. Unknown fields are ignored; besides `format`, `users` and `refreshTokens`,
    /// only a user's `username` and a refresh token's `token`, `username` and `expiresAt` are
    /// required, the other fields taking their ``EmulatedUser`` defaults (`revoked` and
    /// `signsIDTokens`: `false`; `dpopKey`: none).
    init(data: Data) throws(EmulatorSnapshotError) {
        guard let text = String(data: data, encoding: .utf8) else {
            throw EmulatorSnapshotError(.malformed, "The snapshot is not UTF-8 text.")
        }
        let value: JSON
        do throws(JSONParser.Failure) {
            value = try JSONParser.parse(text)
        } catch {
            throw EmulatorSnapshotError(.malformed, "The snapshot is not JSON (error at byte \(error.offset)).")
        }
        guard case .object(let object) = value else {
            throw EmulatorSnapshotError(.malformed, "The snapshot is not a JSON object.")
        }
        let root = Fields(object, path: "")
        guard object["format"] != nil else {
            throw EmulatorSnapshotError(.malformed, "The JSON has no format field: it is not a tenant snapshot.")
        }
        let format = try root.integer("format")
        guard format >= 1 else {
            throw EmulatorSnapshotError(.malformed, "The snapshot's format \(format) is not a format of this emulator.")
        }
        guard format <= Self.currentFormat else {
            throw EmulatorSnapshotError(
                .newerFormat,
                "The snapshot has format \(format); this emulator reads format \(Self.currentFormat) and older.")
        }
        tenantSubdomain = try root.optionalString("tenantSubdomain")
        clientId = try root.optionalString("clientId")

        users = [:]
        for (index, element) in try root.array("users").enumerated() {
            let user = try Self.user(from: Fields(element, path: "users[\(index)]"))
            let key = user.username.lowercased()
            guard users[key] == nil else {
                throw EmulatorSnapshotError(.malformed, "The snapshot has two users named \(user.username).")
            }
            users[key] = user
        }
        refreshTokens = [:]
        for (index, element) in try root.array("refreshTokens").enumerated() {
            let fields = try Fields(element, path: "refreshTokens[\(index)]")
            let token = try fields.string("token")
            guard refreshTokens[token] == nil else {
                throw EmulatorSnapshotError(.malformed, "The snapshot has the same refresh token twice.")
            }
            refreshTokens[token] = RefreshTokenRecord(
                username: try fields.string("username"),
                expiresAt: Date(timeIntervalSince1970: try fields.seconds("expiresAt")),
                revoked: try fields.bool("revoked", default: false),
                signsIDTokens: try fields.bool("signsIDTokens", default: false),
                dpopKey: try fields.optionalString("dpopKey"), authentication: try Self.authentication(fields))
        }
    }

    /// A refresh token's `authTime` and `acr`: both, or neither.
    private static func authentication(_ fields: Fields) throws(EmulatorSnapshotError) -> AuthenticationEvent? {
        let acr = try fields.optionalString("acr")
        guard fields.object["authTime"] != nil || acr != nil else { return nil }
        guard let acr, !acr.isEmpty else { throw fields.invalid("acr", "a non-empty string beside authTime") }
        return AuthenticationEvent(time: Date(timeIntervalSince1970: try fields.seconds("authTime")), acr: acr)
    }

    private static func user(from fields: Fields) throws(EmulatorSnapshotError) -> EmulatedUser {
        var attributes: [String: String] = [:]
        if let object = try fields.optionalObject("attributes") {
            for pair in object.pairs {
                guard case .string(let value) = pair.value else {
                    throw fields.invalid("attributes.\(pair.key)", "a string", optional: true)
                }
                attributes[pair.key] = value
            }
        }
        var methods: [EmulatedAuthMethod] = []
        for (index, element) in try fields.array("mfaMethods", required: false).enumerated() {
            let method = try Fields(element, path: fields.path("mfaMethods[\(index)]"))
            methods.append(
                EmulatedAuthMethod(
                    id: try method.string("id"), channel: try method.string("channel"),
                    address: try method.string("address")))
        }
        var history: [String] = []
        for (index, element) in try fields.array("passwordHistory", required: false).enumerated() {
            guard case .string(let password) = element else {
                throw fields.invalid("passwordHistory[\(index)]", "a string", optional: true)
            }
            history.append(password)
        }
        return EmulatedUser(
            username: try fields.string("username"), password: try fields.optionalString("password"),
            attributes: attributes, mfaMethods: methods,
            requiresMethodRegistration: try fields.bool("requiresMethodRegistration", default: false),
            passwordHistory: history,
            requiresBrowser: try fields.bool("requiresBrowser", default: false))
    }
}

/// The fields of one JSON object of a snapshot, read with errors that say where the problem is.
private struct Fields {
    let object: JSONObject
    /// Where the object is, such as `users[2]`; empty for the top level.
    let prefix: String

    init(_ object: JSONObject, path: String) {
        self.object = object
        self.prefix = path
    }

    init(_ value: JSON, path: String) throws(EmulatorSnapshotError) {
        guard case .object(let object) = value else {
            throw EmulatorSnapshotError(.malformed, "The snapshot's \(path) is not an object.")
        }
        self.init(object, path: path)
    }

    /// The path of `key` in this object.
    func path(_ key: String) -> String {
        prefix.isEmpty ? key : "\(prefix).\(key)"
    }

    /// The error for `key`: missing or of the wrong type, or (when `optional`) of the wrong type.
    func invalid(_ key: String, _ expected: String, optional: Bool = false) -> EmulatorSnapshotError {
        let problem = optional ? "is not \(expected)" : "is missing or not \(expected)"
        return EmulatorSnapshotError(.malformed, "The snapshot's \(path(key)) \(problem).")
    }

    /// A required, non-empty string.
    func string(_ key: String) throws(EmulatorSnapshotError) -> String {
        guard case .string(let value)? = object[key], !value.isEmpty else { throw invalid(key, "a non-empty string") }
        return value
    }

    /// A string, or `nil` when the field is absent or `null`.
    func optionalString(_ key: String) throws(EmulatorSnapshotError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw invalid(key, "a string", optional: true)
        }
    }

    func bool(_ key: String, default fallback: Bool) throws(EmulatorSnapshotError) -> Bool {
        switch object[key] {
        case nil: return fallback
        case .bool(let value)?: return value
        default: throw invalid(key, "true or false", optional: true)
        }
    }

    /// A required whole number (`1` or `1.0`).
    func integer(_ key: String) throws(EmulatorSnapshotError) -> Int {
        switch object[key] {
        case .integer(let value)?: return value
        case .double(let value)? where value == value.rounded() && abs(value) < 1e15: return Int(value)
        default: throw invalid(key, "a whole number")
        }
    }

    /// A required, finite number of seconds.
    func seconds(_ key: String) throws(EmulatorSnapshotError) -> TimeInterval {
        switch object[key] {
        case .integer(let value)?: return TimeInterval(value)
        case .double(let value)? where value.isFinite: return value
        default: throw invalid(key, "a number of seconds since 1970")
        }
    }

    /// An array: required, or empty when absent and not `required`.
    func array(_ key: String, required: Bool = true) throws(EmulatorSnapshotError) -> [JSON] {
        switch object[key] {
        case nil where !required: return []
        case .array(let values)?: return values
        default: throw invalid(key, "an array", optional: !required)
        }
    }

    /// An object, or `nil` when the field is absent.
    func optionalObject(_ key: String) throws(EmulatorSnapshotError) -> JSONObject? {
        switch object[key] {
        case nil: return nil
        case .object(let value)?: return value
        default: throw invalid(key, "an object", optional: true)
        }
    }
}
