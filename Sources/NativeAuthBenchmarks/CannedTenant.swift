import Foundation
import NativeAuth

/// A tenant that answers every request with the same Entra-sized bytes, so the SDK and the
/// hand-rolled baseline are timed on identical answers. It records the form field names of each
/// request when asked to, which is how the benchmark checks both clients send the same fields.
final class CannedTenant: CannedServer {
    // swift-format-ignore: NeverForceUnwrap
    // A literal that is a valid URL.
    static let authority = URL(string: "https://contoso.ciamlogin.com/contoso.onmicrosoft.com")!
    static let clientId = "3b7a8c5e-1f2d-4e6a-9b0c-7d8e9f0a1b2c"

    let continuationToken: String
    let accessToken: String
    let refreshToken: String
    let idToken: String
    private let initiateBody: Data
    private let oobChallengeBody: Data
    private let passwordChallengeBody: Data
    private let tokenBody: Data
    private let headers: [String: String]
    /// Whether the challenge answers ask for a password (a password user) or send a code.
    let passwordUser: Bool
    private let recording = LockedBox<[String: [Set<String>]]?>(nil)

    init(passwordUser: Bool) {
        self.passwordUser = passwordUser
        var seed: UInt64 = 0x5eed
        func opaque(_ count: Int) -> String {
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            return String(
                (0..<count).map { _ in
                    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return alphabet[Int(seed >> 58)]
                })
        }
        func jwt(_ claims: String) -> String {
            let header = #"{"typ":"JWT","alg":"RS256","kid":"L1KfKFI_jnXbwWc22xZxw1sUHH0"}"#
            return Self.base64URL(Data(header.utf8)) + "." + Self.base64URL(Data(claims.utf8)) + "." + opaque(342)
        }
        let tenantId = "9188040d-6c67-4c5b-b112-36a304b66dad"
        let oid = "00000000-0000-0000-66f3-3332eca7ea81"
        continuationToken = opaque(1_180)
        refreshToken = opaque(1_100)
        idToken = jwt(
            """
            {"aud":"\(Self.clientId)","iss":"https://\(tenantId).ciamlogin.com/\(tenantId)/v2.0",\
            "iat":1800000000,"nbf":1800000000,"exp":1800003600,"aio":"\(opaque(120))",\
            "name":"Ada Lovelace","oid":"\(oid)","preferred_username":"ada@contoso.com",\
            "rh":"\(opaque(60))","sub":"\(opaque(43))","tid":"\(tenantId)","uti":"\(opaque(22))","ver":"2.0"}
            """)
        accessToken = jwt(
            """
            {"aud":"00000003-0000-0000-c000-000000000000","iss":"https://\(tenantId).ciamlogin.com/\(tenantId)/v2.0",\
            "iat":1800000000,"nbf":1800000000,"exp":1800003600,"acct":0,"acr":"1","aio":"\(opaque(160))",\
            "amr":["pwd"],"app_displayname":"Contoso","appid":"\(Self.clientId)","appidacr":"0",\
            "idtyp":"user","ipaddr":"203.0.113.7","name":"Ada Lovelace","oid":"\(oid)",\
            "platf":"3","puid":"10032002A1B2C3D4","rh":"\(opaque(60))","scp":"openid profile email",\
            "sub":"\(opaque(43))","tenant_region_scope":"EU","tid":"\(tenantId)","unique_name":"ada@contoso.com",\
            "uti":"\(opaque(22))","ver":"1.0","wids":["b79fbf4d-3ef9-4689-8143-76b194e85509"],"xms_st":{"sub":"\(opaque(43))"},\
            "xms_tcdt":1700000000}
            """)
        let clientInfo = Self.base64URL(Data(#"{"uid":"\#(oid)","utid":"\#(tenantId)"}"#.utf8))
        initiateBody = Data(#"{"continuation_token":"\#(continuationToken)"}"#.utf8)
        oobChallengeBody = Data(
            """
            {"continuation_token":"\(continuationToken)","challenge_type":"oob","binding_method":"prompt",\
            "challenge_channel":"email","challenge_target_label":"a***@co*****.com","code_length":8,"interval":300}
            """.utf8)
        passwordChallengeBody = Data(
            #"{"continuation_token":"\#(continuationToken)","challenge_type":"password"}"#.utf8)
        tokenBody = Data(
            """
            {"token_type":"Bearer","scope":"openid profile email","expires_in":3599,"ext_expires_in":3599,\
            "access_token":"\(accessToken)","refresh_token":"\(refreshToken)","id_token":"\(idToken)",\
            "client_info":"\(clientInfo)"}
            """.utf8)
        headers = [
            "Content-Type": "application/json; charset=utf-8", "Date": "Fri, 15 Jan 2027 08:00:00 GMT",
            "client-request-id": "6f1e3c2a-0b9d-4e8f-a7c6-5d4b3a291807", "x-ms-request-id": opaque(36),
            "Cache-Control": "no-store, no-cache",
        ]
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Starts keeping the form field names of every request, by endpoint.
    func startRecording() { recording.set([:]) }

    /// The field names recorded since ``startRecording()``, by endpoint; stops recording.
    func stopRecording() -> [String: [Set<String>]] {
        let fields = recording.get() ?? [:]
        recording.set(nil)
        return fields
    }

    func answer(_ request: HTTPRequest) -> HTTPResponse {
        let path = request.url.path
        if recording.get() != nil {
            let body = String(decoding: request.body ?? Data(), as: UTF8.self)
            let names = Set(body.split(separator: "&").map { String($0.split(separator: "=")[0]) })
            recording.update {
                $0?[String(path.split(separator: "/").suffix(2).joined(separator: "/")), default: []].append(names)
            }
        }
        let body: Data
        if path.hasSuffix("/initiate") {
            body = initiateBody
        } else if path.hasSuffix("/challenge") {
            body = passwordUser ? passwordChallengeBody : oobChallengeBody
        } else {
            body = tokenBody
        }
        return HTTPResponse(statusCode: 200, headers: headers, body: body)
    }
}

/// A server of canned answers, made in the calling thread: it answers through the callback path an
/// app's `URLSessionTransport` takes, so the caller is resumed by the answer with no task between.
protocol CannedServer: CallbackTransport, Sendable {
    func answer(_ request: HTTPRequest) -> HTTPResponse
}

extension CannedServer {
    var timeout: TimeInterval { 30 }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse { answer(request) }

    func start(
        _ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> @Sendable () -> Void {
        completion(.success(answer(request)))
        return {}
    }
}

/// A value behind a lock.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
    func update(_ body: (inout Value) -> Void) { lock.withLock { body(&value) } }
}
