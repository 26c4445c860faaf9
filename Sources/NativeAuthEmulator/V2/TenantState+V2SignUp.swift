import Foundation
import NativeAuth

/// Native Auth V2's sign-up journey (Docs/NativeAuthV2Protocol.md, "Sign-up"; Docs/Emulator.md, "Native
/// Auth V2"): the `sign_up` link answers `collectAttributes`; the first `submitAttributes` (with
/// `email`, and `password` when given) sends the email code and answers `verify`; after the code,
/// `collectAttributes` asks for whatever is still missing (the password, then required attributes);
/// then the user is created and the answer is `state: continue`. A refused step keeps its token.
extension TenantState {
    /// `/{tenantId}/api/v2.0/signup/start`: the `sign_up` link of the start answer.
    var v2SignUpHref: String { "/\(environment.tenantId)/\(EmulatorEndpoint.v2SignUpStart.rawValue)" }

    /// The answer of a sign-up step, or `nil` when `call` is not one: the sign-up endpoints, and a
    /// method's `challenge` (resend) or `verify` link called with the token of a sign-up's code.
    mutating func v2SignUpResponse(_ call: Call, body: V2RequestBody) throws(HALError) -> HTTPResponse? {
        let answer: JSONObject
        switch call.endpoint {
        case .v2SignUpStart:
            guard settings.signUpEnabled else {
                return notFound(
                    call.request, now: call.now, correlationId: call.correlationId, publicOrigin: call.publicOrigin)
            }
            answer = try v2SignUpStart(call, body: body)
        case .v2SignUpSubmitAttributes:
            answer = try v2SignUpSubmitAttributes(call, body: body)
        case .v2MethodChallenge, .v2MethodVerify:
            guard case .string(let token)? = body.object["continuationToken"], let flow = flows[token],
                flow.kind == .authorization, flow.stage == .signUpCodeSent
            else { return nil }
            answer =
                call.endpoint == .v2MethodVerify
                ? try v2SignUpVerify(call, body: body) : try v2SignUpResend(call, body: body)
        default:
            return nil
        }
        return jsonResponse(status: 200, body: answer, call: call)
    }

    /// `signup/start` with `continuationToken` only: the attributes to collect, `email` first.
    private mutating func v2SignUpStart(_ call: Call, body: V2RequestBody) throws(HALError) -> JSONObject {
        let token = try body.string("continuationToken")
        var flow = try v2Flow(token, call: call, at: [.authorizationStarted])
        flow.stage = .signUpAttributesRequested
        var names = ["email"]
        if settings.signUpCollectsPassword { names.append("password") }
        names += settings.requiredSignUpAttributes.map(\.name)
        return collectAttributesAnswer(token: store(flow, replacing: token, now: call.now), names: names)
    }

    /// `submitAttributes`: before the code, `email` (and the rest) starts verification; after it,
    /// the values asked for are kept and the next missing one is asked for, or the user created.
    private mutating func v2SignUpSubmitAttributes(_ call: Call, body: V2RequestBody) throws(HALError) -> JSONObject {
        let token = try body.string("continuationToken")
        var flow = try v2Flow(token, call: call, at: [.signUpAttributesRequested, .signUpMoreRequested])
        guard case .object(let given)? = body.object["attributes"] else {
            throw .malformed("the body must contain an object 'attributes'")
        }
        let verified = flow.stage == .signUpMoreRequested
        if !verified {
            // `email` starts the flow; once given (the password asked for before the code), it may
            // be left out.
            if case .string(let email)? = given["email"] {
                guard Self.isEmailAddress(email) else { throw .attributeValidation(["email"]) }
                guard user(named: email) == nil else { throw .userAlreadyExists }
                flow.username = email
            } else if flow.username.isEmpty || given["email"] != nil {
                throw .attributeValidation(["email"])
            }
        }
        if let value = given["password"] {
            guard case .string(let password) = value, !password.isEmpty else {
                throw .attributeValidation(["password"])
            }
            do throws(APIError) {
                try checkPasswordPolicy(password, username: flow.username, previous: [])
            } catch {
                throw .signUpPasswordPolicy(error)
            }
            flow.password = password
        }
        var rest = given
        rest["email"] = nil
        rest["password"] = nil
        if !rest.keys.isEmpty {
            do throws(APIError) {
                flow.attributes.merge(try validatedAttributes(JSON.object(rest).serialized)) { _, new in new }
            } catch {
                throw .attributeValidation(Self.invalidNames(error, fallback: rest.keys))
            }
        }
        guard !verified else { return try nextV2SignUpStep(call, token: token, flow: flow) }
        if settings.nativeAuthV2SignUpAsksAgain {
            return collectAttributesAnswer(token: store(flow, replacing: token, now: call.now), names: ["email"])
        }
        if settings.nativeAuthV2SignUpPasswordBeforeCode, settings.signUpCollectsPassword, flow.password == nil {
            return collectAttributesAnswer(token: store(flow, replacing: token, now: call.now), names: ["password"])
        }
        let method = V2Method(
            id: Encoding.stableUUID("v2-signup-email:\(environment.tenantId):\(flow.username.lowercased())"),
            type: "email", address: flow.username)
        flow.code = sendCode(to: flow.username, purpose: "signUp", now: call.now)
        flow.methodId = method.id
        flow.stage = .signUpCodeSent
        return codeVerifyAnswer(token: store(flow, replacing: token, now: call.now), factor: .single, method: method)
    }

    /// The sign-up's email method, as the path of a `challenge` or `verify` link names it.
    private func v2SignUpMethod(_ call: Call, flow: Flow) throws(HALError) -> V2Method {
        guard let path = V2MethodPath(call.request.url), path.type == "email", path.id == flow.methodId else {
            throw .unknownMethod
        }
        return V2Method(id: path.id, type: "email", address: flow.username)
    }

    /// The `resend` link (the method's `challenge` path): a new code, a new token.
    private mutating func v2SignUpResend(_ call: Call, body: V2RequestBody) throws(HALError) -> JSONObject {
        let token = try body.string("continuationToken")
        var flow = try v2Flow(token, call: call, at: [.signUpCodeSent])
        let method = try v2SignUpMethod(call, flow: flow)
        flow.code = sendCode(to: flow.username, purpose: "signUp", now: call.now)
        return codeVerifyAnswer(token: store(flow, replacing: token, now: call.now), factor: .single, method: method)
    }

    /// The `verify` link with `otp`: a wrong code keeps the token; the right one moves on.
    private mutating func v2SignUpVerify(_ call: Call, body: V2RequestBody) throws(HALError) -> JSONObject {
        let token = try body.string("continuationToken")
        var flow = try v2Flow(token, call: call, at: [.signUpCodeSent])
        _ = try v2SignUpMethod(call, flow: flow)
        guard try body.string("otp") == flow.code else { throw .invalidOneTimeCode }
        flow.code = nil
        return try nextV2SignUpStep(call, token: token, flow: flow)
    }

    /// After the code: the password (when the user flow has one), then missing required
    /// attributes, each asked with `collectAttributes`; then the user is created (`continue`).
    private mutating func nextV2SignUpStep(_ call: Call, token: String, flow: Flow) throws(HALError) -> JSONObject {
        var flow = flow
        var missing: [String] = []
        if settings.signUpCollectsPassword, flow.password == nil {
            missing = ["password"]
        } else {
            missing = settings.requiredSignUpAttributes.filter {
                $0.required && (flow.attributes[$0.name] ?? "").isEmpty
            }
            .map(\.name)
        }
        if !missing.isEmpty {
            flow.stage = .signUpMoreRequested
            return collectAttributesAnswer(token: store(flow, replacing: token, now: call.now), names: missing)
        }
        guard user(named: flow.username) == nil else { throw .userAlreadyExists }
        users[flow.username.lowercased()] = EmulatedUser(
            username: flow.username, password: flow.password, attributes: flow.attributes)
        flow.password = nil
        flow.stage = .journeyFinished
        return continueAnswer(token: store(flow, replacing: token, now: call.now))
    }

    /// `action: collectAttributes` with a descriptor per name and the `submitAttributes` link.
    private func collectAttributesAnswer(token: String, names: [String]) -> JSONObject {
        let descriptors: [JSON] = names.map { name in
            var descriptor: JSONObject = ["attributeId": .string(name)]
            switch name {
            case "email":
                descriptor["inputType"] = "text"
                descriptor["required"] = true
            case "password":
                descriptor["inputType"] = "password"
                descriptor["required"] = true
            default:
                let configured = settings.requiredSignUpAttributes.first { $0.name == name }
                descriptor["inputType"] = .string(Self.inputType(configured?.type ?? "string"))
                descriptor["required"] = .bool(configured?.required ?? false)
                if let regex = configured?.regex { descriptor["regex"] = .string(regex) }
            }
            return .object(descriptor)
        }
        return [
            "state": "interactionRequired",
            "action": "collectAttributes",
            "continuationToken": .string(token),
            "attributes": .array(descriptors),
            "_links": .object(["submitAttributes": href(EmulatorEndpoint.v2SignUpSubmitAttributes.rawValue)]),
        ]
    }

    /// The `inputType` for a V1 attribute type: [Attrs]' `text`, `boolean`, `date`; `number` for
    /// whole numbers (the emulator's choice: [Attrs]' list of examples has none).
    static func inputType(_ type: String) -> String {
        switch type.lowercased() {
        case "boolean": "boolean"
        case "int", "integer": "number"
        case "datetime": "date"
        default: "text"
        }
    }

    /// The names a V1 `attribute_validation_failed` named, else `fallback`.
    private static func invalidNames(_ error: APIError, fallback: [String]) -> [String] {
        guard case .array(let names)? = error.extras["invalid_attributes"] else { return fallback }
        let found = names.compactMap { value -> String? in
            guard case .object(let object) = value else { return nil }
            return object["name"]?.stringValue
        }
        return found.isEmpty ? fallback : found
    }
}

/// One entry of `error.innerError.details`: a `code` and the attributes it is about ([Android],
/// PR 3240).
struct HALErrorDetail: Sendable, Equatable {
    var code: String
    var attributeIds: [String]

    var json: JSONObject {
        ["code": .string(code), "attributeIds": .array(attributeIds.map(JSON.string))]
    }
}

extension HALError {
    /// A user with this email exists: `innerError.code` `userAlreadyExists`, with a detail naming `email`.
    static var userAlreadyExists: HALError {
        var error = HALError(
            "invalidRequest", inner: "userAlreadyExists", aadsts: 1_003_037,
            "It looks like you may already have an account with this email address. Please sign in instead.")
        error.details = [HALErrorDetail(code: "userAlreadyExists", attributeIds: ["email"])]
        return error
    }

    /// Refused values: `innerError.code` `attributeValidationError`, a detail per attribute.
    static func attributeValidation(_ names: [String]) -> HALError {
        var error = HALError(
            "invalidRequest", inner: "attributeValidationError", aadsts: 3_000_002,
            "Attribute validation failed for: \(names.joined(separator: ", ")).")
        error.details = names.map { HALErrorDetail(code: "attributeValidationError", attributeIds: [$0]) }
        return error
    }

    /// A password the policy refuses: `attributeValidationError` with one detail naming `password`,
    /// its code the policy's (`password_too_weak` → `passwordTooWeak`).
    static func signUpPasswordPolicy(_ refusal: APIError) -> HALError {
        var error = HALError("invalidRequest", inner: "attributeValidationError", aadsts: 399_246, refusal.message)
        let code = Self.camelCase(refusal.suberror ?? "password_is_invalid")
        error.details = [HALErrorDetail(code: code, attributeIds: ["password"])]
        return error
    }

    /// `password_too_weak` → `passwordTooWeak`.
    static func camelCase(_ snake: String) -> String {
        let parts = snake.split(separator: "_")
        return parts.enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.capitalized }.joined()
    }
}
