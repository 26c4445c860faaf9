import Foundation
import NativeAuth

/// A tenant that answers native authentication V2 with canned, Entra-sized bytes
/// (Docs/NativeAuthV2Protocol.md): authorize-challenge's 401, the `sign_in` answer, the method's
/// `challenge` and `verify` answers, the resume's code, and the same token answer as
/// ``CannedTenant``. Its continuation tokens are the V1 tenant's, so both protocols carry the same
/// bytes per token.
final class CannedV2Tenant: CannedServer {
    private let v1: CannedTenant
    private let started: Data
    private let firstFactor: Data
    private let codeSent: Data
    private let passwordWanted: Data
    private let done: Data
    private let code: Data

    init(passwordUser: Bool) {
        let v1 = CannedTenant(passwordUser: passwordUser)
        self.v1 = v1
        let token = v1.continuationToken
        let tenant = "/9188040d-6c67-4c5b-b112-36a304b66dad/api/v2.0"
        let method =
            "\(tenant)/auth/methods/\(passwordUser ? "password" : "email")/6f1e3c2a-0b9d-4e8f-a7c6-5d4b3a291807"
        started = Data(
            """
            {"error":"InsufficientAuthorization","error_description":"AADSTS50055: Authenticate first.",\
            "error_codes":[50055],"continuation_token":"\(token)","sign_in":"\(tenant)/signin/start",\
            "sign_up":"\(tenant)/signup/start","reset_password":"\(tenant)/resetpassword/start"}
            """.utf8)
        firstFactor = Data(
            """
            {"state":"interactionRequired","action":"challenge","continuationToken":"\(token)",\
            "challengeContext":{"authenticationFactor":"singleFactor"},"_embedded":{"methods":[{"id":\
            "6f1e3c2a-0b9d-4e8f-a7c6-5d4b3a291807","type":"email","hint":"a***@co*****.com","_links":\
            {"challenge":{"href":"\(method)/challenge"},"verify":{"href":"\(method)/verify"}}}]},\
            "_links":{"self":{"href":"\(tenant)/signin/start"}}}
            """.utf8)
        codeSent = Data(
            """
            {"state":"interactionRequired","action":"verify","continuationToken":"\(token)",\
            "id":"6f1e3c2a-0b9d-4e8f-a7c6-5d4b3a291807","type":"email","hint":"a***@co*****.com",\
            "codeLength":8,"payload":{"codeLength":8},"challengeContext":{"authenticationFactor":"singleFactor"},\
            "_links":{"verify":{"href":"\(method)/verify"},"resend":{"href":"\(method)/challenge"}}}
            """.utf8)
        passwordWanted = Data(
            """
            {"state":"interactionRequired","action":"verify","continuationToken":"\(token)",\
            "id":"6f1e3c2a-0b9d-4e8f-a7c6-5d4b3a291807","type":"password","payload":{},\
            "challengeContext":{"authenticationFactor":"singleFactor"},"_links":{"verify":{"href":"\(method)/verify"}}}
            """.utf8)
        done = Data(
            """
            {"state":"continue","continuationToken":"\(token)",\
            "_links":{"continue":{"href":"/9188040d-6c67-4c5b-b112-36a304b66dad/oauth2/v2.0/authorize-challenge"}}}
            """.utf8)
        code = Data(#"{"code":"\#(v1.refreshToken.prefix(800))"}"#.utf8)
        self.passwordUser = passwordUser
    }

    let passwordUser: Bool

    func answer(_ request: HTTPRequest) -> HTTPResponse {
        let path = request.url.path
        let headers = ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store, no-cache"]
        let body: Data
        if path.hasSuffix("/authorize-challenge") {
            let resuming = String(decoding: request.body ?? Data(), as: UTF8.self).hasPrefix("continuation_token=")
            if !resuming { return HTTPResponse(statusCode: 401, headers: headers, body: started) }
            body = code
        } else if path.hasSuffix("/signin/start") {
            body = passwordUser ? passwordWanted : firstFactor
        } else if path.hasSuffix("/challenge") {
            body = codeSent
        } else if path.hasSuffix("/verify") {
            body = done
        } else {
            return v1.answer(request)
        }
        return HTTPResponse(statusCode: 200, headers: headers, body: body)
    }
}

/// The SDK's sign-in over V2 against its sign-in over V1, on canned answers of the same sizes.
///
///     swift run -c release nativeauth-benchmarks --protocols [--rounds N]
///
/// V2 makes twice the round trips of V1 for the same sign-in (a code sign-in: 6 against 3); the
/// figure is the CPU each whole sign-in costs, median of rounds, as in ``Comparison``.
enum ProtocolComparison {
    static func client(_ transport: any HTTPTransport, _ version: NativeAuthProtocol) throws -> NativeAuthClient {
        var configuration = try NativeAuthConfiguration(
            clientId: CannedTenant.clientId, authority: CannedTenant.authority)
        configuration.protocolVersion = version
        return NativeAuthClient(
            configuration: configuration, transport: transport, credentialStore: InMemoryCredentialStore())
    }

    static func run(rounds: Int) async throws -> [Comparison.Row] {
        var rows: [Comparison.Row?] = []
        for passwordUser in [false, true] {
            let v2 = try client(CannedV2Tenant(passwordUser: passwordUser), .v2)
            let v1 = try client(CannedTenant(passwordUser: passwordUser), .v1)
            let signIn = passwordUser ? Comparison.sdkPasswordSignIn : Comparison.sdkCodeSignIn
            // Both must sign in before anything is timed.
            _ = try await signIn(v2)
            _ = try await signIn(v1)
            rows.append(
                try await Comparison.row(
                    passwordUser ? "password sign-in, V2 against V1" : "code sign-in, V2 against V1",
                    rounds: rounds, batch: 100
                ) {
                    _ = try await signIn(v2)
                } baseline: {
                    _ = try await signIn(v1)
                })
        }
        return rows.compactMap { $0 }
    }

    /// Round trips of each sign-in: V2's, then V1's (a code sign-in: authorize-challenge,
    /// `signin/start`, `challenge`, `verify`, resume, token against `initiate`, `challenge`, token).
    static func roundTrips(_ row: Comparison.Row) -> (v2: Double, v1: Double) {
        row.name.hasPrefix("code") ? (6, 3) : (5, 3)
    }

    static func table(_ rows: [Comparison.Row], rounds: Int) -> String {
        func time(_ ns: Double) -> String { String(format: "%.1f µs", ns / 1e3) }
        var lines = [
            "The SDK over V2 against the SDK over V1, canned answers of the same sizes; CPU, median of \(rounds) rounds",
            "  per sign-in                       per round trip",
            "  ratio   V2         V1             ratio   V2         V1        operation",
        ]
        for row in rows {
            let trips = roundTrips(row)
            let perTrip = (row.sdk / trips.v2) / max(row.baseline / trips.v1, 1)
            lines.append(
                String(format: "  %5.2f×  ", row.ratio)
                    + time(row.sdk).padding(toLength: 11, withPad: " ", startingAt: 0)
                    + time(row.baseline).padding(toLength: 15, withPad: " ", startingAt: 0)
                    + String(format: "%5.2f×  ", perTrip)
                    + time(row.sdk / trips.v2).padding(toLength: 11, withPad: " ", startingAt: 0)
                    + time(row.baseline / trips.v1).padding(toLength: 10, withPad: " ", startingAt: 0)
                    + row.name + String(format: " (%.0f and %.0f round trips)", trips.v2, trips.v1))
        }
        return lines.joined(separator: "\n")
    }
}
