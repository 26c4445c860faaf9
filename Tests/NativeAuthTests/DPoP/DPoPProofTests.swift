import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// A key that signs by returning a fixed marker, recording what it was given.
struct MarkerKey: DPoPKey {
    var algorithm = "RS256"
    var publicJWK = [
        "kty": "RSA",
        "n":
            "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
        "e": "AQAB",
    ]
    func sign(_ input: Data) async throws -> Data { Data("signature".utf8) }
}

struct FailingKey: DPoPKey {
    struct Refused: Error {}
    var algorithm: String { "ES256" }
    var publicJWK: [String: String] { ["kty": "EC", "crv": "P-256", "x": "x", "y": "y"] }
    func sign(_ input: Data) async throws -> Data { throw Refused() }
}

@Suite("DPoP proofs (RFC 9449 §4.2)", .hangLimit)
struct DPoPProofTests {
    static func parts(_ jwt: String) throws -> (header: JSONValue, payload: JSONValue, signature: Data) {
        let pieces = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(pieces.count == 3)
        let header = try JSONValue.parse(try #require(Base64URL.decode(pieces[0])))
        let payload = try JSONValue.parse(try #require(Base64URL.decode(pieces[1])))
        return (header, payload, try #require(Base64URL.decode(pieces[2])))
    }

    @Test func aProofHasTheHeaderAndClaimsTheRFCAsksFor() async throws {
        let url = URL(string: "https://server.example.com/token?x=1#frag")!
        let proof = try await DPoPProof.make(
            key: MarkerKey(), method: "post", url: url, nonce: "eyJ7S_zG.eyJH0-Z.HX4w-7v",
            issuedAt: Date(timeIntervalSince1970: 1_562_262_616.7), jti: "e1j3V_bKic8-LAEB")
        let (header, payload, signature) = try Self.parts(proof.jwt)
        #expect(header["typ"]?.stringValue == "dpop+jwt")
        #expect(header["alg"]?.stringValue == "RS256")
        #expect(header["jwk"]?["kty"]?.stringValue == "RSA")
        #expect(header["jwk"]?["e"]?.stringValue == "AQAB")
        #expect(header["jwk"]?.objectValue?.count == 3, "the public members only")
        #expect(payload["htm"]?.stringValue == "POST")
        #expect(payload["htu"]?.stringValue == "https://server.example.com/token")
        #expect(payload["iat"]?.intValue == 1_562_262_616)
        #expect(payload["jti"]?.stringValue == "e1j3V_bKic8-LAEB")
        #expect(payload["nonce"]?.stringValue == "eyJ7S_zG.eyJH0-Z.HX4w-7v")
        #expect(payload["ath"] == nil)
        #expect(signature == Data("signature".utf8))
    }

    /// RFC 9449 §7.1's example: the `ath` of the access token `Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU`.
    @Test func athIsTheHashOfTheAccessTokenAsTheRFCExampleShows() async throws {
        let token = "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"
        #expect(DPoPProof.accessTokenHash(token) == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
        let proof = try await DPoPProof.make(
            key: MarkerKey(), method: "GET", url: URL(string: "https://resource.example.org/protectedresource")!,
            accessToken: token, issuedAt: Date())
        #expect(try Self.parts(proof.jwt).payload["ath"]?.stringValue == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
    }

    /// RFC 7638 §3.1's example key and thumbprint.
    @Test func theThumbprintIsRFC7638s() {
        #expect(DPoPProof.thumbprint(of: MarkerKey().publicJWK) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        #expect(DPoPProof.thumbprint(of: ["kty": "oct", "k": "x"]) == nil)
        #expect(DPoPProof.thumbprint(of: ["kty": "EC", "crv": "P-256", "x": "x"]) == nil)
    }

    @Test func everyProofHasItsOwnIdentifier() async throws {
        var seen: Set<String> = []
        for _ in 0..<200 {
            let proof = try await DPoPProof.make(
                key: MarkerKey(), method: "POST", url: URL(string: "https://a.example/t")!, issuedAt: Date())
            let jti = try #require(try Self.parts(proof.jwt).payload["jti"]?.stringValue)
            #expect(jti.count == 22)
            seen.insert(jti)
        }
        #expect(seen.count == 200)
    }

    @Test func aKeyThatCannotSignAndAURLWithoutHostAreTypedErrors() async {
        await #expect(throws: DPoPProofError.self) {
            try await DPoPProof.make(
                key: FailingKey(), method: "POST", url: URL(string: "https://a.example/t")!, issuedAt: Date())
        }
        await #expect(throws: DPoPProofError.self) {
            try await DPoPProof.make(key: MarkerKey(), method: "POST", url: URL(string: "urn:x")!, issuedAt: Date())
        }
    }

    @Test func nonceMemoryKeepsTheNewestValidNoncePerOriginAndRole() {
        let nonces = DPoPNonces()
        let token = URL(string: "https://server.example.com:8443/token")!
        func answer(_ nonce: String?) -> HTTPResponse {
            HTTPResponse(statusCode: 400, headers: nonce.map { ["DPoP-Nonce": $0] } ?? [:], body: Data())
        }
        func nonce(_ url: URL, resource: Bool = false) -> String? { nonces.nonce(for: url, withAccessToken: resource) }
        @discardableResult
        func remember(_ nonce: String?, _ url: URL, resource: Bool = false) -> String? {
            nonces.remember(answer(nonce), from: url, withAccessToken: resource)
        }
        #expect(nonce(token) == nil)
        #expect(remember("eyJ7S_zG.eyJH0-Z.HX4w-7v", token) == "eyJ7S_zG.eyJH0-Z.HX4w-7v")
        #expect(nonce(URL(string: "https://SERVER.example.com:8443/other")!) == "eyJ7S_zG.eyJH0-Z.HX4w-7v")
        #expect(nonce(URL(string: "https://server.example.com/token")!) == nil, "another port")
        // The resource server on the same origin keeps its own nonce (RFC 9449 §9).
        #expect(nonce(token, resource: true) == nil)
        remember("resource-1", URL(string: "https://server.example.com:8443/userinfo")!, resource: true)
        #expect(nonce(token, resource: true) == "resource-1")
        #expect(nonce(token) == "eyJ7S_zG.eyJH0-Z.HX4w-7v")
        remember("second", token)
        #expect(nonce(token) == "second")
        // Not NQCHAR: a quote, a backslash, a space, a control character; empty; none.
        for bad in ["a\"b", "a\\b", "a b", "a\u{7}b", ""] {
            #expect(remember(bad, token) == nil, "\(bad)")
        }
        remember(nil, token)
        #expect(nonce(token) == "second")
        #expect(remember(String(repeating: "n", count: DPoPNonces.maximumLength + 1), token) == nil)
        #expect(remember(String(repeating: "n", count: DPoPNonces.maximumLength), token) != nil)
    }

    /// When one server more than the capacity gives a nonce, the one whose nonce is the oldest
    /// is forgotten, whatever its name; a server that gives a new nonce is the newest again.
    @Test func nonceMemoryForgetsTheOldestFirst() {
        let nonces = DPoPNonces()
        func url(_ index: Int) -> URL { URL(string: "https://\(index % 2 == 0 ? "z" : "a")-host\(index).example/")! }
        let answer = { (nonce: String) in HTTPResponse(statusCode: 200, headers: ["DPoP-Nonce": nonce], body: Data()) }
        for index in 0..<DPoPNonces.capacity {
            nonces.remember(answer("n\(index)"), from: url(index), withAccessToken: false)
        }
        // Server 0 answers again: server 1 is now the oldest.
        nonces.remember(answer("again"), from: url(0), withAccessToken: false)
        nonces.remember(answer("new"), from: url(DPoPNonces.capacity), withAccessToken: false)
        #expect(nonces.nonce(for: url(1), withAccessToken: false) == nil, "the oldest is forgotten")
        #expect(nonces.nonce(for: url(0), withAccessToken: false) == "again")
        #expect(nonces.nonce(for: url(2), withAccessToken: false) == "n2")
        #expect(nonces.nonce(for: url(DPoPNonces.capacity), withAccessToken: false) == "new")
        let kept = (0...DPoPNonces.capacity).filter { nonces.nonce(for: url($0), withAccessToken: false) != nil }
        #expect(kept.count == DPoPNonces.capacity)
    }
}
