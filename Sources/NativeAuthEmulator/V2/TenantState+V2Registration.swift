import Foundation
import NativeAuth

/// Just-in-time method registration in Native Auth V2's sign-in (Docs/NativeAuthV2.md,
/// "Registering a method (JIT)"), as far as its one source goes: after the first factor, a user
/// who must register a method gets `action: enroll` with the methods it may register, each with an
/// `enroll` link; the `enroll` link takes `continuationToken` and `target` (the contact) and sends
/// a code, answering `action: activate` with an `activate` link; the `activate` link takes
/// `continuationToken` and `code`, registers the method and answers `state: continue`. A contact
/// already verified is registered at once (`state: continue` from `enroll`). The paths under
/// `auth/methods/{type}/{id}/` are the emulator's: the client follows the links.
extension TenantState {
    /// The methods a user may register: an email address and a phone number, as V1's registration
    /// offers them.
    func registrationMethods(of user: EmulatedUser) -> [V2Method] {
        let key = "\(environment.tenantId):\(user.username.lowercased())"
        return ["email", "sms"].map {
            V2Method(id: Encoding.stableUUID("v2-register-\($0):\(key)"), type: $0, address: nil)
        }
    }

    /// `action: enroll`: the methods to register, each with its `enroll` link; the first one's
    /// also at the top level, where the client of the source looks for it.
    func enrollAnswer(token: String, methods: [V2Method]) -> JSONObject {
        let list: [JSON] = methods.map { method in
            .object([
                "id": .string(method.id), "type": .string(method.type),
                "_links": .object([
                    "enroll": href(V2MethodPath.path(type: method.type, id: method.id, action: "enroll"))
                ]),
            ])
        }
        var links: JSONObject = [:]
        if let first = methods.first {
            links["enroll"] = href(V2MethodPath.path(type: first.type, id: first.id, action: "enroll"))
        }
        return [
            "state": "interactionRequired",
            "action": "enroll",
            "continuationToken": .string(token),
            "_embedded": .object(["methods": .array(list)]),
            "_links": .object(links),
        ]
    }

    /// A method's `enroll` link: `target`, the contact to register, checked as V1 checks it.
    mutating func v2MethodEnroll(_ call: Call, body: V2RequestBody) throws(HALError) -> JSONObject {
        let token = try body.string("continuationToken")
        var flow = try v2Flow(token, call: call, at: [.registrationOffered, .registrationCodeSent])
        guard let user = user(named: flow.username) else { throw .userNotFound }
        guard let path = V2MethodPath(call.request.url),
            let method = registrationMethods(of: user).first(where: { $0.id == path.id && $0.type == path.type })
        else { throw .unknownMethod }
        let target = try body.string("target")
        guard Self.isValidContact(target, type: method.type) else { throw .invalidContact(method.type) }
        guard !settings.blockedMethodIds.contains(target) else { throw .methodBlocked }
        flow.registrationTarget = target
        flow.registrationChannel = method.type
        flow.methodId = method.id
        let verified = [user.username] + user.mfaMethods.map(\.address)
        if verified.contains(where: { $0.lowercased() == target.lowercased() }) {
            register(flow)
            return finishRegistration(call, token: token, flow: flow)
        }
        flow.code = sendCode(to: target, purpose: "registration", now: call.now)
        flow.stage = .registrationCodeSent
        let length = max(1, settings.codeLength)
        return [
            "state": "interactionRequired",
            "action": "activate",
            "continuationToken": .string(store(flow, replacing: token, now: call.now)),
            "id": .string(method.id),
            "type": .string(method.type),
            "hint": .string(Encoding.maskedLabel(target)),
            "codeLength": .integer(length),
            "_links": .object([
                "activate": href(V2MethodPath.path(type: method.type, id: method.id, action: "activate"))
            ]),
        ]
    }

    /// A method's `activate` link: `code`, the one sent to the contact; registers the method.
    mutating func v2MethodActivate(_ call: Call, body: V2RequestBody) throws(HALError) -> JSONObject {
        let token = try body.string("continuationToken")
        let flow = try v2Flow(token, call: call, at: [.registrationCodeSent])
        guard user(named: flow.username) != nil else { throw .userNotFound }
        guard let path = V2MethodPath(call.request.url), path.id == flow.methodId else { throw .unknownMethod }
        guard try body.string("code") == flow.code else { throw .invalidOneTimeCode }
        register(flow)
        return finishRegistration(call, token: token, flow: flow)
    }

    /// Adds the flow's contact to its user's second-factor methods, as V1's registration does.
    private mutating func register(_ flow: Flow) {
        guard var user = user(named: flow.username), let target = flow.registrationTarget else { return }
        let channel = flow.registrationChannel ?? "email"
        if !user.mfaMethods.contains(where: { $0.address.lowercased() == target.lowercased() }) {
            user.mfaMethods.append(
                EmulatedAuthMethod(id: "\(channel)-\(user.mfaMethods.count + 1)", channel: channel, address: target))
        }
        user.requiresMethodRegistration = false
        users[user.username.lowercased()] = user
    }

    private mutating func finishRegistration(_ call: Call, token: String, flow: Flow) -> JSONObject {
        var flow = flow
        flow.code = nil
        flow.stage = .journeyFinished
        return continueAnswer(token: store(flow, replacing: token, now: call.now))
    }

    /// An email address for `email`, a phone number in international format for `sms`.
    static func isValidContact(_ target: String, type: String) -> Bool {
        switch type {
        case "email": return isEmailAddress(target)
        case "sms":
            let digits = target.hasPrefix("+") ? target.dropFirst() : Substring(target)
            return digits.count >= 7 && digits.allSatisfy { $0.isASCII && $0.isNumber }
        default: return false
        }
    }
}

extension HALError {
    /// A contact that is not an address of the method's kind. Not described by any source: the
    /// V1 `invalid_request` meaning in the HAL shape, AADSTS901001 (V1's number for it).
    static func invalidContact(_ type: String) -> HALError {
        HALError(
            "invalidRequest", inner: "invalidChallengeTarget", aadsts: 901_001,
            "The contact is not a valid \(type == "sms" ? "phone number" : "email address").")
    }

    /// A contact the tenant blocks (V1's `provider_blocked_by_rep`, 550024).
    static let methodBlocked = HALError(
        "accessDenied", inner: "providerBlockedByRep", aadsts: 550_024, "This method is blocked; choose another one.")
}
