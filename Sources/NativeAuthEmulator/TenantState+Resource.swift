import Foundation
import NativeAuth

/// The protected resource `GET emulator/me`: a stand-in for an app's API that accepts the access
/// tokens the tenant issued, until they expire on the tenant's clock.
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
        guard let record = accessTokens[token], let user = user(named: record.username) else {
            return unauthorized(
                call, error: "invalid_token", description: "The access token is invalid",
                challenge: #"Bearer error="invalid_token", error_description="The access token is invalid""#)
        }
        guard call.now < record.expiresAt else {
            return unauthorized(
                call, error: "invalid_token", description: "The access token is expired",
                challenge: #"Bearer error="invalid_token", error_description="The access token is expired""#)
        }
        let body: JSONObject = ["username": .string(user.username), "oid": .string(objectId(of: user))]
        return jsonResponse(status: 200, body: body, call: call)
    }

    private func unauthorized(_ call: Call, error: String, description: String, challenge: String) -> HTTPResponse {
        var headers = headers(now: call.now, correlationId: call.correlationId)
        headers["WWW-Authenticate"] = challenge
        let body: JSONObject = ["error": .string(error), "error_description": .string(description)]
        return HTTPResponse(statusCode: 401, headers: headers, body: body.data)
    }
}
