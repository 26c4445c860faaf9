import Foundation
import NativeAuth

/// A pushed authorization request the tenant keeps under its `request_uri` (RFC 9126).
struct PushedAuthorizationRequest: Sendable {
    var clientId: String
    var request: AcceptedAuthorizationRequest
    var loginHint: String
    /// `prompt=none` was pushed.
    var silent: Bool
    /// The push's `client-request-id`, for the error descriptions of the authorization endpoint.
    var correlationId: String?
    var expiresAt: Date
    /// Whether a browser came with it already: a `request_uri` is good once.
    var used = false
}

/// The pushed authorization request endpoint (RFC 9126), and the authorization endpoint's side of
/// a pushed request. Entra has neither; ``EmulatorSettings/pushedAuthorizationRequests`` turns them on.
extension TenantState {
    /// The prefix RFC 9126 §2.2 suggests for a `request_uri`; the rest is 32 random bytes.
    static let requestURIPrefix = "urn:ietf:params:oauth:request_uri:"

    /// The `expires_in` of a pushed request, in whole seconds, at least 1.
    var pushedRequestLifetime: Int {
        let seconds = settings.pushedAuthorizationRequestLifetime
        return seconds.isFinite ? max(1, Int(min(seconds, 86_400).rounded(.down))) : 1
    }

    /// `POST oauth2/v2.0/par`: checks the pushed parameters as the authorization endpoint checks
    /// its own, keeps them under a fresh single-use `request_uri`, and answers `201` with it and
    /// `expires_in` (RFC 9126 §2.2). A refusal is a JSON error (RFC 9126 §2.3): `invalid_client`
    /// with `401` for a missing or unknown `client_id`, `invalid_request` (or the check's own error)
    /// with `400` for the rest, a `request_uri` among the pushed parameters included (§2.1). Not
    /// served (`404`) while the setting is off.
    mutating func pushAuthorizationRequest(_ call: Call) -> HTTPResponse {
        guard settings.pushedAuthorizationRequests != .off else {
            return notFound(
                call.request, now: call.now, correlationId: call.correlationId, publicOrigin: call.publicOrigin)
        }
        do throws(APIError) {
            let form = try Self.pushedForm(of: call.request)
            let clientId = form["client_id"] ?? ""
            guard clientId == environment.clientId else {
                throw APIError.invalidClient(clientId, tenant: environment.tenantSubdomain).with(status: 401)
            }
            try authenticateClient(form, endpoint: .pushedAuthorizationRequest, call: call)
            let request: AcceptedAuthorizationRequest
            let loginHint: String
            let silent: Bool
            switch check(form, call: call) {
            case .errorPage(let error), .refused(let error, _, _, _):
                throw error
            case .accepted(let accepted, let hint, let prompt):
                (request, loginHint, silent) = (accepted, hint, prompt)
            }
            guard form["request_uri"] == nil else { throw .requestURIPushed }
            let lifetime = pushedRequestLifetime
            web.pushed = web.pushed.filter {
                call.now < $0.value.expiresAt.addingTimeInterval(TimeInterval(lifetime))
            }
            let pushed = PushedAuthorizationRequest(
                clientId: environment.clientId, request: request, loginHint: loginHint, silent: silent,
                correlationId: call.correlationId, expiresAt: call.now.addingTimeInterval(TimeInterval(lifetime)))
            let requestURI = Self.insert(
                pushed, byteCount: 32, prefix: Self.requestURIPrefix, from: random, into: &web.pushed)
            var response = jsonResponse(
                status: 201, body: ["request_uri": .string(requestURI), "expires_in": .integer(lifetime)], call: call)
            response.headers["Cache-Control"] = "no-store"
            return response
        } catch {
            return errorResponse(error, call: call)
        }
    }

    /// The authorization endpoint with a `request_uri` (RFC 9126 §4): the pushed parameters stand
    /// for the request, whatever else the URL carries. `client_id` must be the tenant's client (an
    /// error page otherwise, as without a push). An unknown `request_uri`, or one another client
    /// pushed, gets an error page with `invalid_request_uri`: no redirect URI can be trusted. One
    /// already used or expired goes back to the pushed redirect URI with `invalid_request_uri` and
    /// the pushed `state`. A kept request is recognised as used or expired for one lifetime after
    /// it expires; after that it is unknown.
    mutating func authorizePushed(_ requestURI: String, query: FormBody, call: Call) -> HTTPResponse {
        guard let clientId = query["client_id"], !clientId.isEmpty else {
            return errorPage(.webMissingParameter("client_id"), call)
        }
        guard clientId == environment.clientId else {
            return errorPage(.invalidClient(clientId, tenant: environment.tenantSubdomain), call)
        }
        guard var pushed = web.pushed[requestURI] else {
            return errorPage(.invalidRequestURI("it is unknown"), call)
        }
        guard pushed.clientId == clientId else {
            return errorPage(.invalidRequestURI("it was pushed by another client"), call)
        }
        let request = pushed.request
        func refuse(_ error: APIError) -> HTTPResponse {
            redirectBack(
                to: request.redirectURI, mode: request.responseMode,
                errorParameters(error, call: call, correlationId: pushed.correlationId), state: request.state,
                call: call)
        }
        guard !pushed.used else { return refuse(.invalidRequestURI("it was already used")) }
        guard call.now < pushed.expiresAt else { return refuse(.invalidRequestURI("it expired")) }
        pushed.used = true
        web.pushed[requestURI] = pushed
        if pushed.silent { return refuse(.loginRequired) }
        return showSignIn(request, loginHint: pushed.loginHint, call: call)
    }

    /// The form of a pushed request: `application/x-www-form-urlencoded`, well formed.
    private static func pushedForm(of request: HTTPRequest) throws(APIError) -> FormBody {
        let contentType = request.header("Content-Type")
        let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == "application/x-www-form-urlencoded" else { throw .unsupportedMediaType(contentType) }
        do throws(FormBody.Malformed) {
            return try FormBody(data: request.body ?? Data())
        } catch {
            throw .malformedBody(error.reason)
        }
    }
}
