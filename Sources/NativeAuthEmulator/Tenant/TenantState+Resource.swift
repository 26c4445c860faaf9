import Foundation
import NativeAuth

/// The protected resource `GET emulator/me`: a stand-in for an app's API that accepts the access
/// tokens the tenant issues, until they expire on the tenant's clock.
///
/// Like a real API, it validates an access token by what the token says rather than by looking it
/// up: the token is an unsigned JWT whose `aud` must be the tenant's client id, `iss` and `tid` the
/// tenant's, `exp` still ahead on the tenant's clock, and whose `preferred_username` and `oid` must
/// name a user the tenant has now. The tenant keeps no access tokens, so one issued before a
/// ``EmulatedTenant/snapshot()`` is still accepted after a ``EmulatedTenant/restore(from:)``, in this
/// process or another. Revoking works on refresh tokens only: an access token stays valid until it
/// expires, unless its user is removed. The tokens are unsigned, so a JWT built by hand with the
/// right claims is accepted too; the emulator is a test double, not a security boundary.
extension TenantState {
    func protectedResource(_ call: Call) -> HTTPResponse {
        let authorization = call.request.header("Authorization")?.trimmingCharacters(in: .whitespaces) ?? ""
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            return unauthorized(
                call, error: "invalid_request", description: "The request has no bearer access token.",
                challenge: #"Bearer error="invalid_request""#)
        }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        guard let validated = validAccessToken(token) else {
            return unauthorized(
                call, error: "invalid_token", description: "The access token is invalid",
                challenge: #"Bearer error="invalid_token", error_description="The access token is invalid""#)
        }
        guard call.now < validated.expiresAt else {
            return unauthorized(
                call, error: "invalid_token", description: "The access token is expired",
                challenge: #"Bearer error="invalid_token", error_description="The access token is expired""#)
        }
        let user = validated.user
        let body: JSONObject = ["username": .string(user.username), "oid": .string(objectId(of: user))]
        return jsonResponse(status: 200, body: body, call: call)
    }

    /// The user and expiry of `token` when it is an access token of this tenant for a user it
    /// has now (expired or not), or `nil`.
    func validAccessToken(_ token: String) -> (user: EmulatedUser, expiresAt: Date)? {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, segments[2].isEmpty,
            case .object(let header)? = Self.jsonSegment(segments[0]), header["alg"] == "none",
            case .object(let claims)? = Self.jsonSegment(segments[1]),
            claims["aud"] == .string(environment.clientId),
            claims["iss"] == .string(issuer),
            claims["tid"] == .string(environment.tenantId),
            let username = claims["preferred_username"]?.stringValue,
            let user = user(named: username),
            claims["oid"] == .string(objectId(of: user))
        else { return nil }
        let expiry: TimeInterval
        switch claims["exp"] {
        case .integer(let seconds)?: expiry = TimeInterval(seconds)
        case .double(let seconds)? where seconds.isFinite: expiry = seconds
        default: return nil
        }
        return (user, Date(timeIntervalSince1970: expiry))
    }

    /// The JSON value in one base64url segment of a JWT, or `nil`.
    private static func jsonSegment(_ segment: Substring) -> JSON? {
        guard let data = Encoding.base64URLDecode(String(segment)),
            let text = String(data: data, encoding: .utf8)
        else { return nil }
        return try? JSONParser.parse(text)
    }

    private func unauthorized(_ call: Call, error: String, description: String, challenge: String) -> HTTPResponse {
        var headers = headers(now: call.now, correlationId: call.correlationId)
        headers["WWW-Authenticate"] = challenge
        let body: JSONObject = ["error": .string(error), "error_description": .string(description)]
        return HTTPResponse(statusCode: 401, headers: headers, body: body.data)
    }
}
