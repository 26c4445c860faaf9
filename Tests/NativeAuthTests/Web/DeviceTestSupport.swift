import Foundation

@testable import NativeAuth

/// A provider with a device authorization endpoint on a script: discovery, keys, `/device`
/// answering `deviceAnswer`, and `/token` answering the queued steps in order (the last one
/// again when the queue runs dry). Records every request.
final class DeviceScriptedProvider: HTTPTransport, Sendable {
    static let issuer = "https://login.example.com"
    static let deviceCode = "dc-SECRET-4f2BYdoEEUFwAfY7"
    static let userCode = "WDJB-MJHT"

    /// One answer of the token endpoint: a response, or a transport failure.
    enum Step: Sendable {
        case answer(HTTPResponse)
        case noAnswer
    }

    let discovery: String
    let deviceAnswer: Locked<HTTPResponse>
    private let steps: Locked<[Step]>
    private let received = Locked<[HTTPRequest]>([])

    init(deviceEndpoint: Bool = true, deviceAnswer: HTTPResponse = DeviceScriptedProvider.deviceAnswer(), steps: [Step])
    {
        let device = deviceEndpoint ? "\"device_authorization_endpoint\":\"\(Self.issuer)/device\"," : ""
        discovery = """
            {"issuer":"\(Self.issuer)","authorization_endpoint":"\(Self.issuer)/authorize",\(device)\
            "token_endpoint":"\(Self.issuer)/token","jwks_uri":"\(Self.issuer)/jwks",\
            "response_types_supported":["code"],"subject_types_supported":["public"],\
            "id_token_signing_alg_values_supported":["RS256"]}
            """
        self.deviceAnswer = Locked(deviceAnswer)
        self.steps = Locked(steps)
    }

    /// Replaces the token endpoint's queued steps.
    func script(_ steps: [Step]) { self.steps.withLock { $0 = steps } }

    var requests: [HTTPRequest] { received.current }
    func requests(to path: String) -> [HTTPRequest] { requests.filter { $0.url.path == path } }
    func forms(to path: String) -> [String] {
        requests(to: path).map { String(decoding: $0.body ?? Data(), as: UTF8.self) }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        received.withLock { $0.append(request) }
        switch request.url.path {
        case "/.well-known/openid-configuration":
            return Self.json(200, discovery)
        case "/jwks":
            return Self.json(200, WebTestSigner.jwks())
        case "/device":
            return deviceAnswer.current
        case "/token":
            let step = steps.withLock { $0.count > 1 ? $0.removeFirst() : $0.first }
            switch step {
            case .answer(let response)?: return response
            case .noAnswer?, nil: throw URLError(.timedOut)
            }
        default:
            return HTTPResponse(statusCode: 404)
        }
    }

    static func json(_ status: Int, _ body: String) -> HTTPResponse {
        HTTPResponse(statusCode: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
    }

    /// A device authorization answer; `nil` leaves a field out.
    static func deviceAnswer(
        deviceCode: String? = DeviceScriptedProvider.deviceCode, userCode: String? = DeviceScriptedProvider.userCode,
        verificationURI: String? = "https://login.example.com/device", expiresIn: String? = "600",
        interval: String? = "5", extra: String = ""
    ) -> HTTPResponse {
        var fields: [String] = []
        if let deviceCode { fields.append("\"device_code\":\"\(deviceCode)\"") }
        if let userCode { fields.append("\"user_code\":\"\(userCode)\"") }
        if let verificationURI { fields.append("\"verification_uri\":\"\(verificationURI)\"") }
        if let expiresIn { fields.append("\"expires_in\":\(expiresIn)") }
        if let interval { fields.append("\"interval\":\(interval)") }
        if !extra.isEmpty { fields.append(extra) }
        return json(200, "{" + fields.joined(separator: ",") + "}")
    }

    /// The token endpoint's OAuth error answer.
    static func error(_ code: String, status: Int = 400) -> Step {
        .answer(json(status, "{\"error\":\"\(code)\"}"))
    }

    static let pending = error("authorization_pending")
    static let slowDown = error("slow_down")

    static let accessToken = "device-access-SECRET-1"
    static let refreshToken = "device-refresh-SECRET-1"

    /// Signed ID token claims as a device flow issues them (no `nonce`).
    static func claims(aud: String = "\"web-app\"", sub: String = "user-7") -> String {
        """
        {"iss":"\(issuer)","aud":\(aud),"sub":"\(sub)","exp":1800003600,"iat":1800000000,\
        "preferred_username":"grace@example.com"}
        """
    }

    /// A token answer with an ID token signed over `claims`; `nil` sends none.
    static func success(idTokenClaims: String? = claims()) -> Step {
        var body = "{\"token_type\":\"Bearer\",\"expires_in\":3600,\"access_token\":\"\(accessToken)\","
        body += "\"refresh_token\":\"\(refreshToken)\",\"scope\":\"openid offline_access\""
        if let idTokenClaims { body += ",\"id_token\":\"\(WebTestSigner.token(claims: idTokenClaims))\"" }
        body += "}"
        return .answer(json(200, body))
    }
}
