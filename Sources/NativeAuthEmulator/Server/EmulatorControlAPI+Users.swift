import Foundation
import LoopbackHTTP
import NativeAuth

/// `GET /users`, `POST /users`, `GET /users/{username}`, `DELETE /users/{username}`.
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

    /// The user named `username`; `404` when there is none.
    private func existingUser(named username: String) throws(Failure) -> EmulatedUser {
        guard let user = tenant.user(named: username) else { throw .notFound("No user is named \(username).") }
        return user
    }

    func createUser(_ request: LoopbackHTTPRequest) throws(Failure) -> LoopbackHTTPResponse {
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
            throw .conflict("user_exists", "A user named \(username) exists already.")
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
}
