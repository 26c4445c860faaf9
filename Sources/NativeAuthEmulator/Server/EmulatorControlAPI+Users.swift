import Foundation
import LoopbackHTTP
import NativeAuth

/// `GET /users`, `POST /users`, `GET /users/{username}`, `DELETE /users/{username}`,
/// `POST /users/{username}/challenge-next-refresh`.
extension EmulatorControlAPI {
    func listUsers() -> LoopbackHTTPResponse {
        Self.json(200, ["users": .array(tenant.users.map { .object(Self.userObject($0)) })])
    }

    func readUser(_ username: String) throws(Failure) -> LoopbackHTTPResponse {
        Self.json(200, Self.userObject(try existingUser(named: username)))
    }

    func deleteUser(_ username: String) throws(Failure) -> LoopbackHTTPResponse {
        _ = try existingUser(named: username)
        tenant.removeUser(named: username)
        return LoopbackHTTPResponse(status: 204)
    }

    /// ``EmulatedTenant/challengeNextRefresh(of:)`` for an existing user: the next refresh of
    /// their browser or first-party sign-in's tokens answers `insufficient_authorization`.
    func challengeNextRefresh(of username: String) throws(Failure) -> LoopbackHTTPResponse {
        let user = try existingUser(named: username)
        tenant.challengeNextRefresh(of: user.username)
        return Self.json(200, ["username": .string(user.username), "challengeNextRefresh": .bool(true)])
    }

    /// The user named `username`; `404` when there is none.
    private func existingUser(named username: String) throws(Failure) -> EmulatedUser {
        guard let user = tenant.user(named: username) else { throw .notFound("No user is named \(username).") }
        return user
    }

    /// The members of a `POST /users` body: every property of ``EmulatedUser``.
    static let userMembers = [
        "username", "password", "attributes", "mfaMethods", "requiresMethodRegistration", "passwordHistory",
        "requiresBrowser",
    ]

    /// The members of one of its `mfaMethods`: every property of ``EmulatedAuthMethod``.
    static let methodMembers = ["id", "channel", "address"]

    func createUser(_ request: LoopbackHTTPRequest) throws(Failure) -> LoopbackHTTPResponse {
        let user = try Self.user(from: ControlFields(request: request))
        guard tenant.user(named: user.username) == nil else {
            throw .conflict("user_exists", "A user named \(user.username) exists already.")
        }
        tenant.addUser(user)
        return Self.json(201, Self.userObject(user))
    }

    /// The user a `POST /users` body describes. A member the call does not know, or a value of
    /// the wrong type, is refused with a message that names it.
    static func user(from body: ControlFields) throws(Failure) -> EmulatedUser {
        try body.refuseUnknownMembers(known: userMembers)
        let username = try body.string("username")
        let password = try body.optionalString("password")
        guard password?.isEmpty != true else {
            throw .badRequest("password is empty; leave it out (or null) for a passwordless user.")
        }
        var methods: [EmulatedAuthMethod] = []
        for (index, element) in try body.array("mfaMethods").enumerated() {
            let method = try ControlFields(element, path: "mfaMethods[\(index)]")
            try method.refuseUnknownMembers(known: methodMembers)
            methods.append(
                EmulatedAuthMethod(
                    id: try method.string("id"), channel: try method.string("channel"),
                    address: try method.string("address")))
        }
        return EmulatedUser(
            username: username, password: password, attributes: try body.stringMap("attributes"),
            mfaMethods: methods, requiresMethodRegistration: try body.bool("requiresMethodRegistration"),
            passwordHistory: try body.stringArray("passwordHistory"), requiresBrowser: try body.bool("requiresBrowser"))
    }

    /// A user as the control API shows it: everything but the passwords, of which only whether
    /// there is one and how many earlier ones the history holds.
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
            "passwordHistoryCount": .integer(user.passwordHistory.count),
            "requiresBrowser": .bool(user.requiresBrowser),
        ]
    }
}
