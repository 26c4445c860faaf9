import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@Suite("Transport: routing, headers, forms", .hangLimit)
struct TransportTests {
    @Test func authorityAndEndpointURLs() {
        let tenant = EmulatedTenant(tenantSubdomain: "Fabrikam!", clientId: "app")
        #expect(tenant.authority.absoluteString == "https://fabrikam.ciamlogin.com/fabrikam.onmicrosoft.com")
        #expect(
            tenant.url(for: .token).absoluteString
                == "https://fabrikam.ciamlogin.com/fabrikam.onmicrosoft.com/oauth2/v2.0/token")
        #expect(tenant.clientId == "app")
        #expect(UUID(uuidString: tenant.tenantId) != nil)
        #expect(EmulatedTenant(tenantSubdomain: "fabrikam").tenantId == tenant.tenantId)
        #expect(EmulatedTenant(tenantSubdomain: "!!!").authority.host == "contoso.ciamlogin.com")
        #expect(EmulatorEndpoint.allCases.count == 36)
        #expect(EmulatorEndpoint.resetPollCompletion.rawValue == "resetpassword/v1.0/poll_completion")
    }

    @Test func responseHeaders() async throws {
        let harness = Harness()
        let reply = try await harness.post(.initiate, ["username": Fixture.ada, "challenge_type": "oob redirect"])
        #expect(reply.response.header("content-type") == "application/json; charset=utf-8")
        #expect(reply.response.header("client-request-id") == "00000000-1111-2222-3333-444444444444")
        #expect(reply.response.header("Date") == "Fri, 15 Jan 2027 08:00:00 GMT")

        let error = try await harness.post(.initiate, ["username": "x@y.com", "challenge_type": "oob redirect"])
        #expect(error["correlation_id"] == "00000000-1111-2222-3333-444444444444")
        #expect(error["timestamp"] == "2027-01-15 08:00:00Z")
        #expect(UUID(uuidString: error["trace_id"]) != nil)
        #expect(error["error_description"].hasPrefix("AADSTS50034: "))
        #expect(
            error.keys.sorted() == [
                "correlation_id", "error", "error_codes", "error_description", "timestamp", "trace_id",
            ])
    }

    @Test func unknownPathsAndMethodsAre404() async throws {
        let harness = Harness()
        let form = Data("client_id=\(harness.clientId)".utf8)
        let headers = ["Content-Type": "application/x-www-form-urlencoded"]
        let urls = [
            "https://contoso.ciamlogin.com/contoso.onmicrosoft.com/oauth2/v2.0/nothing",
            "https://contoso.ciamlogin.com/contoso.onmicrosoft.com//oauth2/v2.0/initiate",
            "https://contoso.ciamlogin.com/other.onmicrosoft.com/oauth2/v2.0/initiate",
            "https://elsewhere.example.com/contoso.onmicrosoft.com/oauth2/v2.0/initiate",
            "http://contoso.ciamlogin.com/contoso.onmicrosoft.com/oauth2/v2.0/initiate",
        ]
        for string in urls {
            let url = try #require(URL(string: string))
            let response = try await harness.tenant.send(
                HTTPRequest(method: "POST", url: url, headers: headers, body: form))
            #expect(response.statusCode == 404, "\(string)")
            #expect(try Reply(response).error == "not_found")
        }
        let get = try await harness.tenant.send(HTTPRequest(method: "GET", url: harness.tenant.url(for: .initiate)))
        #expect(get.statusCode == 404)
        #expect(harness.tenant.receivedRequests.count == urls.count + 1)
    }

    @Test func tenantIdAuthorityAndQueryAreAccepted() async throws {
        let harness = Harness()
        let url = try #require(
            URL(string: "https://contoso.ciamlogin.com/\(harness.tenant.tenantId)/oauth2/v2.0/initiate?dc=ESTS-PUB"))
        let body = formEncode([
            ("client_id", harness.clientId), ("username", Fixture.ada), ("challenge_type", "oob redirect"),
        ])
        let response = try await harness.tenant.send(
            HTTPRequest(
                method: "POST", url: url,
                headers: ["content-type": "application/x-www-form-urlencoded; charset=utf-8"], body: Data(body.utf8)))
        #expect(response.statusCode == 200)
    }

    @Test func clientIdIsChecked() async throws {
        let harness = Harness()
        let wrong = try await harness.post(
            .initiate, ["username": Fixture.ada, "challenge_type": "oob redirect"], clientId: "someone-else")
        expectError(wrong, "invalid_client", code: 700016)
        #expect(wrong["error_description"].contains("'someone-else'"))
        let missing = try await harness.postRaw(.initiate, "username=ada%40contoso.com&challenge_type=oob+redirect")
        expectError(missing, "invalid_client", code: 700016)
    }

    @Test func formDecodingHandlesPercentAndPlus() async throws {
        let harness = Harness()
        harness.tenant.addUser(EmulatedUser(username: "a+b@contoso.com", password: "Sp ace&=%+Pass1"))
        let initiate = try await harness.postRaw(
            .initiate,
            "client_id=\(harness.clientId)&username=a%2Bb%40contoso.com&challenge_type=password+oob%20redirect")
        #expect(initiate.status == 200, "\(initiate.text)")
        let challenge = try await harness.post(
            .challenge, ["continuation_token": initiate["continuation_token"], "challenge_type": "password redirect"])
        let token = try await harness.post(
            .token,
            [
                "continuation_token": challenge["continuation_token"], "grant_type": "password",
                "password": "Sp ace&=%+Pass1", "scope": "openid",
            ])
        #expect(token.status == 200, "\(token.text)")
        // "+" in an unencoded value is a space: this username does not exist.
        let plus = try await harness.postRaw(
            .initiate, "client_id=\(harness.clientId)&username=a+b@contoso.com&challenge_type=oob+redirect")
        expectError(plus, "user_not_found", code: 50034)
        let broken = try await harness.postRaw(.initiate, "client_id=\(harness.clientId)&username=%zz")
        expectError(broken, "invalid_request", code: 90100)
    }

    @Test func bodiesMustBeForms() async throws {
        let harness = Harness()
        let json = try await Reply(
            harness.tenant.send(
                HTTPRequest(
                    method: "POST", url: harness.tenant.url(for: .initiate),
                    headers: ["Content-Type": "application/json"],
                    body: Data(#"{"client_id":"emulator-client-id"}"#.utf8))))
        expectError(json, "invalid_request", code: 90100)
    }

    @Test func receivedRequestsAreRecordedInOrder() async throws {
        let harness = Harness()
        _ = try await harness.post(.initiate, ["username": Fixture.ada, "challenge_type": "oob redirect"])
        _ = try await harness.post(.signUpStart, ["username": Fixture.ada, "challenge_type": "oob redirect"])
        let received = harness.tenant.receivedRequests
        #expect(received.map(\.url) == [harness.tenant.url(for: .initiate), harness.tenant.url(for: .signUpStart)])
        #expect(received[0].method == "POST")
        #expect(String(decoding: received[0].body ?? Data(), as: UTF8.self).contains("username=ada%40contoso.com"))
        harness.tenant.clearReceivedRequests()
        #expect(harness.tenant.receivedRequests.isEmpty)
    }

    @Test func cancelledTaskSendsNothing() async throws {
        let harness = Harness()
        let request = HTTPRequest(method: "POST", url: harness.tenant.url(for: .initiate))
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await harness.tenant.send(request)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(harness.tenant.receivedRequests.isEmpty)
    }

    @Test func settingsCanBeReadAndWritten() {
        let tenant = EmulatedTenant()
        #expect(tenant.settings == EmulatorSettings())
        tenant.settings.codeLength = 6
        tenant.configure { $0.passwordMinLength = 12 }
        #expect(tenant.settings.codeLength == 6 && tenant.settings.passwordMinLength == 12)
        let defaults = EmulatorSettings()
        #expect(defaults.continuationTokenLifetime == 600 && defaults.refreshTokenLifetime == 86_400 * 90)
        #expect(defaults.resetPollsBeforeCompletion == 2 && defaults.resetJobOutcome == .succeed)
    }
}

extension Harness {
    /// POSTs a body exactly as given.
    func postRaw(_ endpoint: EmulatorEndpoint, _ body: String) async throws -> Reply {
        try await Reply(
            tenant.send(
                HTTPRequest(
                    method: "POST", url: tenant.url(for: endpoint),
                    headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(body.utf8))))
    }
}

@Suite("Concurrency", .hangLimit)
struct ConcurrencyTests {
    @Test func parallelFlowsDoNotInterfere() async throws {
        let harness = Harness()
        let users = (0..<24).map { "user\($0)@contoso.com" }
        for user in users {
            harness.tenant.addUser(EmulatedUser(username: user, password: "Parallel-Pass-\(user.count)"))
        }
        let results = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for user in users {
                group.addTask {
                    let token = try await harness.signIn(user, password: "Parallel-Pass-\(user.count)")
                    return (token.status, token["access_token"])
                }
            }
            var results: [(Int, String)] = []
            for try await result in group { results.append(result) }
            return results
        }
        #expect(results.allSatisfy { $0.0 == 200 })
        #expect(Set(results.map(\.1)).count == users.count)
        #expect(harness.tenant.receivedRequests.count == users.count * 3)
    }

    @Test func lookUpsOfUnknownThings() {
        let tenant = EmulatedTenant()
        #expect(tenant.user(named: "nobody@contoso.com") == nil)
        #expect(tenant.lastCode(sentTo: "nobody@contoso.com") == nil)
        #expect(tenant.outbox.isEmpty)
        tenant.addUser(EmulatedUser(username: "Someone@Contoso.com"))
        #expect(tenant.user(named: "someone@contoso.com")?.username == "Someone@Contoso.com")
        tenant.removeUser(named: "SOMEONE@contoso.com")
        #expect(tenant.user(named: "someone@contoso.com") == nil)
    }
}
