import Foundation
import NativeAuth

/// The sign-in page the authorization endpoint shows: its password and code steps, and the
/// authorization code it ends with.
extension TenantState {
    /// `POST login`: the sign-in page's form. A right password (then the code of a second factor,
    /// for a user with MFA methods) sends the browser back with a code; a passwordless user gets an
    /// email code first. A wrong answer shows the page again with an error; Cancel sends the browser
    /// back with `access_denied`.
    mutating func signInForm(_ call: Call) -> HTTPResponse {
        let contentType = call.request.header("Content-Type")
        let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == "application/x-www-form-urlencoded" else {
            return errorPage(.unsupportedMediaType(contentType), call)
        }
        let form: FormBody
        do throws(FormBody.Malformed) {
            form = try FormBody(data: call.request.body ?? Data())
        } catch {
            return errorPage(.malformedBody(error.reason), call)
        }
        guard let handle = form["ctx"], var pending = web.pages[handle], call.now < pending.expiresAt else {
            return errorPage(.signInPageExpired, call)
        }
        if form["action"] == "cancel" {
            web.pages[handle] = nil
            return redirectBack(
                to: pending.request.redirectURI, mode: pending.request.responseMode,
                errorParameters(.signInCancelled, call: call, correlationId: nil), state: pending.request.state,
                call: call)
        }
        switch pending.step {
        case .credentials:
            let given = (form["username"] ?? pending.loginHint).trimmingCharacters(in: .whitespacesAndNewlines)
            func again(_ message: String) -> HTTPResponse {
                page(
                    status: 200,
                    EmulatorLoginPage.signIn(action: loginAction, context: handle, username: given, error: message),
                    call)
            }
            guard !given.isEmpty else { return again("Enter your email address.") }
            guard let user = user(named: given) else {
                return again("We couldn't find an account with this email address.")
            }
            if let expected = user.password {
                let password = form["password"] ?? ""
                guard !password.isEmpty else { return again("Enter your password.") }
                guard password == expected else { return again("Your password is incorrect.") }
                return afterFirstWebFactor(handle: handle, pending: pending, user: user, call: call)
            }
            // A passwordless account signs in with a code sent to its email address.
            pending.username = user.username
            let code = sendCode(to: user.username, purpose: "signIn", now: call.now)
            pending.step = .code(address: user.username, code: code, final: false)
            web.pages[handle] = pending
            return codePage(handle: handle, address: user.username, error: nil, call: call)
        case .code(let address, let expected, let final):
            let given = (form["code"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            guard given == expected else {
                return codePage(
                    handle: handle, address: address, error: "That code is incorrect. Try again.", call: call)
            }
            guard let user = user(named: pending.username ?? "") else {
                web.pages[handle] = nil
                return errorPage(.userNotFound, call)
            }
            return final
                ? finishSignIn(handle: handle, pending: pending, user: user, factors: 2, call: call)
                : afterFirstWebFactor(handle: handle, pending: pending, user: user, call: call)
        }
    }

    /// After the password or email code: the code of a second factor for a user with MFA methods,
    /// else the authorization code. (Method registration is not asked for in the browser.)
    private mutating func afterFirstWebFactor(
        handle: String, pending: PendingSignIn, user: EmulatedUser, call: Call
    ) -> HTTPResponse {
        var pending = pending
        pending.username = user.username
        if let method = mfaMethods(of: user).first {
            let code = sendCode(to: method.address, purpose: "mfa", now: call.now)
            pending.step = .code(address: method.address, code: code, final: true)
            web.pages[handle] = pending
            return codePage(handle: handle, address: method.address, error: nil, call: call)
        }
        return finishSignIn(handle: handle, pending: pending, user: user, factors: 1, call: call)
    }

    /// The code of a sign-in with `factors` verified factors, authenticated now (its `acr`).
    private mutating func finishSignIn(
        handle: String, pending: PendingSignIn, user: EmulatedUser, factors: Int, call: Call
    ) -> HTTPResponse {
        web.pages[handle] = nil
        web.codes = web.codes.filter { call.now < $0.value.expiresAt }
        var issued = IssuedAuthorizationCode(
            username: user.username, request: pending.request,
            expiresAt: call.now.addingTimeInterval(settings.authorizationCodeLifetime))
        issued.authentication = AuthenticationEvent(time: call.now, acr: Self.acr(factors: factors, requested: []))
        let code = Self.insert(issued, byteCount: 48, prefix: "1.", from: random, into: &web.codes)
        // Like Entra: `code` and `state`, no `iss`.
        return redirectBack(
            to: pending.request.redirectURI, mode: pending.request.responseMode, [("code", code)],
            state: pending.request.state, call: call)
    }

    private func codePage(handle: String, address: String, error: String?, call: Call) -> HTTPResponse {
        page(
            status: 200,
            EmulatorLoginPage.code(
                action: loginAction, context: handle, target: Encoding.maskedLabel(address), error: error), call)
    }
}
