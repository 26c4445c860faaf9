import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// Reading a resource's step-up challenge (RFC 9470 §3) from `WWW-Authenticate`, and `send`
/// turning it into a typed error: the challenges of RFC 9110 §11.6.1 read as the grammar says,
/// hostile values refused whole, never a crash.
@Suite("Account: a resource's step-up challenge", .hangLimit)
struct StepUpChallengeTests {
    static let error = "error=\"insufficient_user_authentication\""

    func read(_ header: String) -> StepUpChallenge? { StepUpChallenge(wwwAuthenticate: header) }

    // MARK: The RFC's own challenges

    @Test func theRFCsExamplesAreRead() throws {
        let acr = try #require(
            read(
                "Bearer \(Self.error),\n  error_description=\"A different authentication level is required\",\n  acr_values=\"myACR\""
                    .replacingOccurrences(of: "\n", with: "")))
        #expect(acr.acrValues == ["myACR"] && acr.maxAge == nil && acr.scopes.isEmpty)
        #expect(acr.message == "A different authentication level is required")
        let age = try #require(
            read("Bearer \(Self.error), error_description=\"More recent authentication is required\", max_age=\"5\""))
        #expect(age.acrValues.isEmpty && age.maxAge == 5)
        let both = try #require(
            read("Bearer \(Self.error), acr_values=\"urn:a urn:b\", max_age=5, scope=\"read write\""))
        #expect(both == StepUpChallenge(acrValues: ["urn:a", "urn:b"], maxAge: 5, scopes: ["read", "write"]))
        #expect(both.description == "StepUpChallenge(acrValues: [urn:a, urn:b], maxAge: 5, scopes: [read, write])")
    }

    @Test func aDPoPChallengeAndOneAmongOthersAreRead() throws {
        let dpop = try #require(read("DPoP \(Self.error), acr_values=\"urn:mfa\", algs=\"ES256 RS256\""))
        #expect(dpop.acrValues == ["urn:mfa"])
        let second = try #require(
            read("DPoP algs=\"ES256\", Bearer realm=\"api\", \(Self.error), max_age=\"60\""))
        #expect(second.maxAge == 60)
        // Schemes and parameter names in any case; spaces around `=` (BWS); empty list elements.
        let loose = try #require(read(" , bEaReR  ERROR = insufficient_user_authentication ,, MAX_AGE = 7 ,"))
        #expect(loose.maxAge == 7)
        // A token68 challenge is skipped, not misread.
        #expect(read("Basic YWxhZGRpbjpvcGVuc2VzYW1l==, Bearer \(Self.error), max_age=1")?.maxAge == 1)
    }

    @Test func otherChallengesAreNotAStepUp() {
        #expect(read("Bearer error=\"invalid_token\"") == nil)
        #expect(read("Bearer error=\"insufficient_claims\", claims=\"e30\"") == nil)
        #expect(read("Basic realm=\"\(Self.error)\"") == nil)
        #expect(read("Negotiate \(Self.error)") == nil, "only Bearer and DPoP carry RFC 9470's challenge")
        #expect(read("") == nil)
    }

    // MARK: Quoted strings

    @Test func quotedPairsAreUndoneAndNothingIsFoundInsideAValue() throws {
        let escaped = try #require(read(#"Bearer \#(Self.error), acr_values="urn:\a urn:\c""#))
        #expect(escaped.acrValues == ["urn:a", "urn:c"])
        // An escaped quote is undone too, and then refused: no acr_values entry holds one.
        #expect(read(#"Bearer \#(Self.error), acr_values="urn:a\"b""#) == nil)
        // A parameter written inside another's quoted value is text, not a parameter.
        let inside = try #require(
            read(#"Bearer \#(Self.error), error_description="try acr_values=\"evil\", max_age=1", acr_values="good""#))
        #expect(inside.acrValues == ["good"] && inside.maxAge == nil)
        #expect(
            read(#"Bearer error="invalid_token", error_description="error=insufficient_user_authentication""#) == nil)
        // The description is kept short, and dropped when it holds a control character.
        let long = try #require(
            read("Bearer \(Self.error), error_description=\"\(String(repeating: "x", count: 900))\""))
        #expect(long.message?.count == 300)
        #expect(read("Bearer \(Self.error), error_description=\"a\tb\", max_age=1")?.message == nil)
    }

    @Test func repeatedValuesAreKeptOnce() throws {
        let challenge = try #require(read("Bearer \(Self.error), acr_values=\"a  b a\", scope=\"read read\""))
        #expect(challenge.acrValues == ["a", "b"] && challenge.scopes == ["read"])
        #expect(read("Bearer \(Self.error), acr_values=\"\"")?.acrValues == [])
    }

    // MARK: max_age

    @Test(arguments: [
        ("0", 0), ("5", 5), ("\"5\"", 5), ("0005", 5), ("999999999", 999_999_999), ("000000000000007", 7),
    ])
    func maxAgeIsANonNegativeInteger(value: String, seconds: Int) {
        #expect(read("Bearer \(Self.error), max_age=\(value)")?.maxAge == seconds)
    }

    @Test(arguments: [
        "-1", "\"-5\"", "+5", "5.0", "\" 5\"", "\"5 \"", "1e3", "0x10", "\"\"", "five", "1000000000",
        "99999999999999999999999999999999", "\"٥\"",
    ])
    func aMaxAgeThatIsNotOneRefusesTheChallenge(value: String) {
        #expect(read("Bearer \(Self.error), acr_values=\"urn:mfa\", max_age=\(value)") == nil, "\(value)")
    }

    // MARK: Malformed and hostile values

    @Test(arguments: [
        #"Bearer error="insufficient_user_authentication", acr_values="urn:a"#,  // unterminated
        "Bearer error=\"insufficient_user_authentication\", acr_values=\"a\u{0}b\"",  // NUL
        "Bearer error=\"insufficient_user_authentication\", acr_values=\"a\nb\"",  // a line break
        "Bearer error=\"insufficient_user_authentication\", acr_values=\"a\u{7F}\"",  // DEL
        "Bearer error=\"insufficient_user_authentication\", acr_values=\"a\tb\"",  // a tab in a value
        #"Bearer error="insufficient_user_authentication" max_age=5"#,  // no comma
        #"Bearer error="insufficient_user_authentication", max_age:5"#,  // no `=`
        #"Bearer error="insufficient_user_authentication", max_age="#,  // no value
        #"Bearer error="insufficient_user_authentication", =5"#,  // no name
        #"Bearer=error, max_age=5"#,  // no space after the scheme
        #"Bearer error="insufficient_user_authentication", acr_values=a"b"#,  // a quote in a token
        #"Bearer error="insufficient_user_authentication", max_age=5, max_age=99999"#,  // a name twice
        #"Bearer error="insufficient_user_authentication", acr_values="a", ACR_VALUES="b""#,  // in any case
        #"Bearer error="invalid_token", error="insufficient_user_authentication", max_age=1"#,
        #"Bearer error="insufficient_user_authentication", scope="a\"b""#,  // RFC 6749 §3.3 refuses `"`
        "Bearer error=\"insufficient_user_authentication\", scope=\"caf\u{E9}\"",
        "Bearer error=\"insufficient_user_authentication\", acr_values=urn:caf\u{E9}",  // not a token
    ])
    func aMalformedValueIsRefusedWhole(header: String) {
        #expect(read(header) == nil, "\(header.debugDescription)")
    }

    @Test func limitsAreKept() {
        let padding = String(repeating: "x", count: AuthenticationChallenges.maximumLength)
        #expect(read("Bearer \(Self.error), max_age=1, error_description=\"\(padding)\"") == nil, "over 16 KiB")
        let justUnder = String(repeating: "x", count: AuthenticationChallenges.maximumLength - 200)
        #expect(read("Bearer \(Self.error), max_age=1, error_description=\"\(justUnder)\"")?.maxAge == 1)
        let many = (0..<AuthenticationChallenges.maximumChallenges).map { "Scheme\($0) a=b" }
        #expect(read((many + ["Bearer \(Self.error), max_age=1"]).joined(separator: ", ")) == nil)
        #expect(read((many.dropLast() + ["Bearer \(Self.error), max_age=1"]).joined(separator: ", "))?.maxAge == 1)
        let parameters = (0..<AuthenticationChallenges.maximumParameters).map { "p\($0)=v" }
        #expect(read("Bearer \(Self.error), " + parameters.joined(separator: ", ")) == nil)
        let fewer = parameters.dropLast().joined(separator: ", ")
        #expect(read("Bearer \(Self.error), \(fewer), max_age=2") == nil, "33 parameters")
        #expect(read("Bearer \(Self.error), \(parameters.dropLast(2).joined(separator: ", ")), max_age=2")?.maxAge == 2)
    }

    /// Random values from the grammar's own characters: each is read or refused, never a crash,
    /// and one that is read reads the same again.
    @Test func randomValuesNeverCrash() {
        var random = SplitMix64(seed: 9470)
        let pieces = [
            "Bearer", "DPoP", " ", ",", "=", "\"", "\\", "\t", "error", "insufficient_user_authentication",
            "acr_values", "max_age", "scope", "5", "-", "urn:a", "\u{0}", "\n", "é", "==", "Basic",
        ]
        for _ in 0..<3_000 {
            let count = Int(random.next() % 24)
            let header = (0..<count).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
            let first = read(header)
            #expect(first == read(header))
            if let first {
                #expect(first.maxAge.map { $0 >= 0 } ?? true)
                #expect(first.acrValues.allSatisfy { !$0.isEmpty && !$0.contains(" ") })
            }
        }
    }

    // MARK: The values an app gives

    @Test func aChallengeTheAppMadeIsCheckedBeforeItIsSent() {
        #expect(StepUpChallenge(acrValues: ["urn:a"], maxAge: 0).problem() == nil)
        #expect(StepUpChallenge(maxAge: -1).problem() != nil)
        #expect(StepUpChallenge(acrValues: [""]).problem() != nil)
        #expect(StepUpChallenge(acrValues: ["a b"]).problem() != nil)
        #expect(StepUpChallenge(acrValues: ["a\u{1}"]).problem() != nil)
    }

    // MARK: send

    @Test func sendThrowsItTypedRetriesNothingAndKeepsTheAccount() async throws {
        let transport = ScriptedTransport()
        let client = NativeAuthClient(
            configuration: testConfiguration(), transport: transport, credentialStore: InMemoryCredentialStore())
        let account = try await transport.signIn(client)
        let resource = ScriptedTransport()
        let header = "DPoP algs=\"ES256\", Bearer \(Self.error), acr_values=\"urn:mfa\", max_age=\"300\""
        resource.then("orders", .response(HTTPResponse(statusCode: 401, headers: ["www-authenticate": header])))
        let request = HTTPRequest(method: "GET", url: URL(string: "https://api.example/orders")!)
        let error = try await #require(throws: AuthorizedRequestError.self) {
            try await account.send(request, using: resource)
        }
        #expect(error.isStepUpRequired && error.isInteractionRequired)
        #expect(error.stepUpChallenge == StepUpChallenge(acrValues: ["urn:mfa"], maxAge: 300))
        #expect(!error.isRefreshTokenExpired && error.claims == nil)
        #expect(resource.requests.count == 1, "never retried, never refreshed")
        #expect(transport.requests.count == 3, "no refresh either")
        #expect(try await client.currentAccount()?.account == account.account)
        #expect("\(error)".contains("insufficient_user_authentication") && !"\(error)".contains("access-1"))
        // A challenge that cannot be read is not guessed at: the answer comes back as it is.
        let malformed = "Bearer \(Self.error), max_age=-1"
        resource.then("orders", .response(HTTPResponse(statusCode: 401, headers: ["WWW-Authenticate": malformed])))
        #expect(try await account.send(request, using: resource).statusCode == 401)
        #expect(resource.requests.count == 2)
    }
}
