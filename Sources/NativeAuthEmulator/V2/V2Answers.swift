import Foundation

/// An authentication method as a V2 answer shows it (Docs/NativeAuthV2Protocol.md, "Methods, `codeLength`,
/// `challengeContext`"): an opaque `id`, a `type` (`password`, `email`, `sms`), and, for a code
/// method, where its codes go.
struct V2Method: Sendable, Equatable {
    var id: String
    var type: String
    /// The address codes go to; `nil` for the password method.
    var address: String?
}

/// The factor a step is for: `challengeContext.authenticationFactor`.
enum V2Factor: String, Sendable {
    case single = "singleFactor"
    case multi = "multiFactor"
}

/// The HAL answers of the sign-in journey (Docs/NativeAuthV2Protocol.md, "Interaction answers").
extension TenantState {
    /// `/{tenantId}/{path}`: an href as the service writes them, whose first segment is the tenant
    /// GUID (Docs/NativeAuthV2Protocol.md, "Following an href"). Relative, so it resolves on whatever origin
    /// the client reached the tenant at, and the tenant answers it under its authority path too.
    func href(_ path: String) -> JSON {
        .object(["href": .string("/\(environment.tenantId)/\(path)")])
    }

    /// The first-factor method of `user`: the password when the user has one, else an email code.
    func firstFactorMethod(of user: EmulatedUser) -> V2Method {
        let key = "\(environment.tenantId):\(user.username.lowercased())"
        if user.password != nil {
            return V2Method(id: Encoding.stableUUID("v2-password:\(key)"), type: "password", address: nil)
        }
        return V2Method(id: Encoding.stableUUID("v2-email:\(key)"), type: "email", address: user.username)
    }

    /// The first-factor methods `signin/start` offers `user`: with
    /// ``EmulatorSettings/nativeAuthV2FirstFactorChoice``, the password (when the user has one)
    /// and an email code; otherwise the one ``firstFactorMethod(of:)`` picks.
    func firstFactorMethods(of user: EmulatedUser) -> [V2Method] {
        guard settings.nativeAuthV2FirstFactorChoice else { return [firstFactorMethod(of: user)] }
        let key = "\(environment.tenantId):\(user.username.lowercased())"
        let email = V2Method(id: Encoding.stableUUID("v2-email:\(key)"), type: "email", address: user.username)
        guard user.password != nil else { return [email] }
        return [firstFactorMethod(of: user), email]
    }

    /// The second-factor methods of `user`: its ``EmulatedUser/mfaMethods``.
    func secondFactorMethods(of user: EmulatedUser) -> [V2Method] {
        user.mfaMethods.map { V2Method(id: $0.id, type: $0.channel, address: $0.address) }
    }

    /// `action: challenge`: pick a method and follow its `challenge` link.
    func challengeAnswer(token: String, factor: V2Factor, methods: [V2Method]) -> JSONObject {
        let list: [JSON] = methods.map { method in
            var object: JSONObject = ["id": .string(method.id), "type": .string(method.type)]
            if let address = method.address { object["hint"] = .string(Encoding.maskedLabel(address)) }
            var links: JSONObject = [
                "challenge": href(V2MethodPath.path(type: method.type, id: method.id, action: "challenge"))
            ]
            // A password method's `verify` link comes with the answer to its `challenge`.
            if method.address != nil {
                links["verify"] = href(V2MethodPath.path(type: method.type, id: method.id, action: "verify"))
            } else if let recover = recoverLink(of: method) {
                links["recover"] = recover
            }
            object["_links"] = .object(links)
            return .object(object)
        }
        var answer: JSONObject = [
            "state": "interactionRequired",
            "action": "challenge",
            "continuationToken": .string(token),
            "challengeContext": .object(["authenticationFactor": .string(factor.rawValue)]),
            "_embedded": .object(["methods": .array(list)]),
        ]
        if settings.nativeAuthV2ChallengeWithoutFactor { answer["challengeContext"] = nil }
        return answer
    }

    /// `action: verify` after a code was sent: `codeLength` at the top level and in `payload`
    /// (Docs/NativeAuthV2Protocol.md, open question 11: both, as [JS] observes), `resend` beside `verify`.
    func codeVerifyAnswer(token: String, factor: V2Factor, method: V2Method) -> JSONObject {
        let length = max(1, settings.codeLength)
        return [
            "state": "interactionRequired",
            "action": "verify",
            "continuationToken": .string(token),
            "id": .string(method.id),
            "type": .string(method.type),
            "hint": .string(Encoding.maskedLabel(method.address ?? "")),
            "codeLength": .integer(length),
            "payload": .object(["codeLength": .integer(length)]),
            "challengeContext": .object(["authenticationFactor": .string(factor.rawValue)]),
            "_links": .object([
                "verify": href(V2MethodPath.path(type: method.type, id: method.id, action: "verify")),
                "resend": href(V2MethodPath.path(type: method.type, id: method.id, action: "challenge")),
            ]),
        ]
    }

    /// `action: verify` for the password method: `type: password` at the top level, an empty
    /// `payload`, and with ``EmulatorSettings/nativeAuthV2PasswordRecovery`` the method's `recover`
    /// link beside `verify`.
    func passwordVerifyAnswer(token: String, method: V2Method) -> JSONObject {
        var links: JSONObject = [
            "verify": href(V2MethodPath.path(type: method.type, id: method.id, action: "verify"))
        ]
        if let recover = recoverLink(of: method) { links["recover"] = recover }
        return [
            "state": "interactionRequired",
            "action": "verify",
            "continuationToken": .string(token),
            "id": .string(method.id),
            "type": "password",
            "payload": .object(JSONObject()),
            "challengeContext": .object(["authenticationFactor": .string(V2Factor.single.rawValue)]),
            "_links": .object(links),
        ]
    }

    /// The password method's `recover` link (inline password reset), with
    /// ``EmulatorSettings/nativeAuthV2PasswordRecovery``; `nil` for a code method.
    func recoverLink(of method: V2Method) -> JSON? {
        guard method.type == "password", settings.nativeAuthV2PasswordRecovery else { return nil }
        return href("api/v2.0/auth/methods/password/\(V2MethodPath.segment(method.id))/recover")
    }

    /// `state: continue`: the journey is done; the `continue` link is `authorize-challenge`.
    func continueAnswer(token: String) -> JSONObject {
        [
            "state": "continue",
            "continuationToken": .string(token),
            "_links": .object(["continue": href(EmulatorEndpoint.authorizeChallenge.rawValue)]),
        ]
    }

    /// `state: webFallbackRequired`: the user must finish in a browser. It carries no continuation
    /// token: the journey is over, and nothing more can be done with one.
    static let webFallbackAnswer: JSONObject = ["state": "webFallbackRequired"]
}
