import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// Every control API call, over loopback HTTP.
@Suite("Emulator server: control API", .hangLimit)
struct ServerControlAPITests {
    @Test("info names the authority, client, tenant and control base; unknown calls are 404, wrong methods 405")
    func infoAndErrors() async throws {
        let served = try ServedTenant()
        let info = try await served.control("GET", "")
        #expect(info.status == 200)
        #expect(info["authority"] as? String == served.server.authority.absoluteString)
        #expect(info["clientId"] as? String == served.tenant.clientId)
        #expect(info["tenantId"] as? String == served.tenant.tenantId)
        #expect(info["tenantSubdomain"] as? String == "contoso")
        #expect(info["control"] as? String == served.server.controlURL.absoluteString)
        #expect(info["manualClock"] as? Bool == true)
        #expect(try await served.control("GET", "/info").json.count == info.json.count)

        let missing = try await served.control("GET", "/nothing/here")
        #expect(missing.status == 404)
        #expect(missing.error == "not_found")
        let wrong = try await served.control("PATCH", "/users")
        #expect(wrong.status == 405)
        #expect(wrong.response.header("Allow") == "GET, POST")
        let badEscape = try await RawHTTP.exchange(
            port: served.port, "GET /emulator/v1/users/%zz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(badEscape.responses.map(\.status) == [400])
        // Nothing of this reached the tenant.
        #expect(served.tenant.receivedRequests.isEmpty)
        await served.server.stop()
    }

    @Test("users: list, create, read, delete; duplicates and bad bodies are refused")
    func users() async throws {
        let served = try ServedTenant()
        let list = try await served.control("GET", "/users")
        let names = (list["users"] as? [[String: Any]])?.compactMap { $0["username"] as? String }
        #expect(names == [Fixture.ada, Fixture.alan, Fixture.grace, Fixture.linus])
        let ada = try #require((list["users"] as? [[String: Any]])?.first)
        #expect(ada["hasPassword"] as? Bool == true)
        #expect(ada["password"] == nil)  // never shown

        let body = #"""
            {"username":"new+tag@contoso.com","password":"Fresh-Passw0rd-1","attributes":{"city":"Oslo"},
             "mfaMethods":[{"id":"m1","channel":"email","address":"backup@contoso.com"}]}
            """#
        let created = try await served.control("POST", "/users", body)
        #expect(created.status == 201)
        #expect(created["username"] as? String == "new+tag@contoso.com")
        let user = try #require(served.tenant.user(named: "new+tag@contoso.com"))
        #expect(user.password == "Fresh-Passw0rd-1")
        #expect(user.attributes == ["city": "Oslo"])
        #expect(user.mfaMethods == [EmulatedAuthMethod(id: "m1", channel: "email", address: "backup@contoso.com")])

        #expect(try await served.control("POST", "/users", body).status == 409)
        for bad in [
            "", "not json", "[]", #"{"password":"x"}"#, #"{"username":""}"#, #"{"username":"a","attributes":{"n":1}}"#,
        ] {
            let refused = try await served.control("POST", "/users", bad)
            #expect(refused.status == 400, "\(bad)")
            #expect(refused.error == "invalid_request")
        }
        let passwordless = try await served.control("POST", "/users", #"{"username":"plain@contoso.com"}"#)
        #expect(passwordless["hasPassword"] as? Bool == false)

        let read = try await served.control("GET", "/users/new%2Btag@contoso.com")
        #expect(read.status == 200)
        #expect((read["attributes"] as? [String: String]) == ["city": "Oslo"])
        #expect(try await served.control("GET", "/users/nobody@contoso.com").status == 404)
        #expect(try await served.control("DELETE", "/users/new%2Btag@contoso.com").status == 204)
        #expect(served.tenant.user(named: "new+tag@contoso.com") == nil)
        #expect(try await served.control("DELETE", "/users/new%2Btag@contoso.com").status == 404)
        await served.server.stop()
    }

    @Test("challenge-next-refresh: the next refresh of a first-party sign-in is challenged, once; 404, 405")
    func challengeNextRefresh() async throws {
        let served = try ServedTenant { $0.authorizationChallengeEndpoint = true }
        let harness = served.harness
        let started = try await harness.startChallenge([("username", Fixture.ada), ("password", Fixture.adaPassword)])
        let tokens = try await harness.redeemChallengeCode(started["authorization_code"])
        func refresh(_ token: String) async throws -> Reply {
            try await harness.postPairs(
                .token,
                [("grant_type", "refresh_token"), ("refresh_token", token), ("scope", "openid offline_access")])
        }
        let path = "/users/\(Fixture.ada.uppercased())/challenge-next-refresh"
        let marked = try await served.control("POST", path)
        #expect(marked.status == 200, "\(marked.text)")
        #expect(marked["username"] as? String == Fixture.ada)
        #expect(marked["challengeNextRefresh"] as? Bool == true)
        #expect(try await served.control("POST", path).status == 200, "twice before a refresh is still once")

        let challenged = try await refresh(tokens["refresh_token"])
        #expect(challenged.status == 403 && challenged.error == "insufficient_authorization", "\(challenged.text)")
        #expect(!challenged["auth_session"].isEmpty)
        let refreshed = try await refresh(tokens["refresh_token"])
        #expect(refreshed.status == 200, "once, and the refresh token stays valid: \(refreshed.text)")

        let unknown = try await served.control("POST", "/users/nobody@contoso.com/challenge-next-refresh")
        #expect(unknown.status == 404 && unknown.error == "not_found")
        let wrong = try await served.control("GET", "/users/\(Fixture.ada)/challenge-next-refresh")
        #expect(wrong.status == 405 && wrong.error == "method_not_allowed")
        #expect(wrong.response.header("Allow") == "POST")
        #expect(try await refresh(refreshed["refresh_token"]).status == 200, "neither refused call marked anyone")
        #expect(served.tenant.receivedRequests.allSatisfy { !$0.url.path.hasPrefix(EmulatorServer.controlPath) })
        await served.server.stop()
    }

    @Test("codes: the last code sent to an address, and the outbox filtered by address")
    func codes() async throws {
        let served = try ServedTenant()
        #expect(try await served.control("GET", "/codes/\(Fixture.grace)").status == 404)
        _ = try await served.harness.startSignIn(Fixture.grace)
        _ = try await served.harness.startSignIn(Fixture.grace)
        let last = try await served.control("GET", "/codes/\(Fixture.grace.uppercased())")
        #expect(last.status == 200)
        #expect(last["code"] as? String == served.tenant.lastCode(sentTo: Fixture.grace))
        #expect(last["purpose"] as? String == "signIn")
        #expect(last["to"] as? String == Fixture.grace)
        #expect((last["sentAt"] as? String)?.hasPrefix("2027-01-15T08:00:00") == true)

        let all = try await served.control("GET", "/codes?to=\(Fixture.grace)")
        #expect((all["codes"] as? [Any])?.count == 2)
        #expect((try await served.control("GET", "/codes?to=nobody%40contoso.com")["codes"] as? [Any])?.isEmpty == true)
        #expect((try await served.control("GET", "/codes")["codes"] as? [Any])?.count == 2)
        await served.server.stop()
    }

    @Test("force: the next calls to an endpoint get the forced answer, named by path or case")
    func force() async throws {
        let served = try ServedTenant()
        let forced = try await served.control(
            "POST", "/force",
            #"{"endpoint":"initiate","times":2,"answer":{"kind":"error","error":"invalid_client","codes":[700016],"status":401}}"#
        )
        #expect(forced.status == 200)
        #expect(forced["endpoint"] as? String == "oauth2/v2.0/initiate")
        for _ in 0..<2 {
            let reply = try await served.harness.postPairs(
                .initiate, [("username", Fixture.ada), ("challenge_type", "oob redirect")])
            expectError(reply, "invalid_client", code: 700016, status: 401)
        }
        let normal = try await served.harness.postPairs(
            .initiate, [("username", Fixture.ada), ("challenge_type", "oob redirect")])
        #expect(normal.status == 200)

        _ = try await served.control("POST", "/force", #"{"endpoint":"oauth2/v2.0/initiate","answer":"redirect"}"#)
        expectRedirect(
            try await served.harness.postPairs(
                .initiate, [("username", Fixture.ada), ("challenge_type", "oob redirect")]))
        _ = try await served.control(
            "POST", "/force",
            #"{"endpoint":"/oauth2/v2.0/token","answer":{"kind":"raw","status":502,"headers":{"X-A":"b"},"body":"<html>"}}"#
        )
        _ = try await served.control(
            "POST", "/force", #"{"endpoint":"token","answer":{"kind":"tooManyRequests","retryAfter":7}}"#)
        let raw = try await served.transport.send(
            HTTPRequest(method: "POST", url: served.server.url(for: .token), body: Data("grant_type=password".utf8)))
        #expect(raw.statusCode == 502)
        #expect(raw.body == Data("<html>".utf8))
        #expect(raw.header("X-A") == "b")
        let limited = try await served.harness.post(.token, ["grant_type": "password"])
        #expect(limited.status == 429)
        #expect(limited.response.header("Retry-After") == "7")

        for bad in [
            #"{"endpoint":"nowhere","answer":"timeout"}"#, #"{"endpoint":"token","answer":"explode"}"#,
            #"{"endpoint":"token"}"#, #"{"endpoint":"token","answer":"timeout","times":0}"#,
            #"{"endpoint":"token","answer":{"kind":"error"}}"#,
            #"{"endpoint":"token","answer":{"kind":"error","error":"x","status":99}}"#,
        ] {
            #expect(try await served.control("POST", "/force", bad).status == 400, "\(bad)")
        }
        await served.server.stop()
    }

    @Test("clock: read and advance a manual clock; a system clock cannot be advanced (409)")
    func clock() async throws {
        let served = try ServedTenant()
        let before = try await served.control("GET", "/clock")
        #expect(before["manual"] as? Bool == true)
        #expect(before["epochSeconds"] as? Double == epoch.timeIntervalSince1970)
        let after = try await served.control("POST", "/clock/advance", #"{"seconds":90.5}"#)
        #expect(after.status == 200)
        #expect(after["epochSeconds"] as? Double == epoch.timeIntervalSince1970 + 90.5)
        #expect(served.harness.clock.now() == epoch.addingTimeInterval(90.5))
        #expect(try await served.control("POST", "/clock/advance", #"{"seconds":-1}"#).status == 400)
        #expect(try await served.control("POST", "/clock/advance", #"{"seconds":"soon"}"#).status == 400)
        await served.server.stop()

        let systemTenant = EmulatedTenant()
        let server = try EmulatorServer(tenant: systemTenant)
        server.start()
        let transport = URLSessionTransport(timeout: socketBound)
        let url = try #require(URL(string: server.controlURL.absoluteString + "/clock/advance"))
        let refused = try ControlReply(
            await transport.send(HTTPRequest(method: "POST", url: url, body: Data(#"{"seconds":60}"#.utf8))))
        #expect(refused.status == 409)
        #expect(refused.error == "clock_not_manual")
        #expect((refused["message"] as? String)?.contains("--manual-clock") == true)
        await server.stop()
    }

    @Test("reset: back to the starting users; flows, codes, sessions and forced answers forgotten")
    func reset() async throws {
        let served = try ServedTenant()
        _ = try await served.control("POST", "/users", #"{"username":"extra@contoso.com"}"#)
        served.tenant.removeUser(named: Fixture.grace)
        let signedIn = try await served.harness.signIn(Fixture.ada, password: Fixture.adaPassword)
        #expect(signedIn.status == 200)
        _ = try await served.harness.startSignIn(Fixture.alan)
        served.tenant.force(.networkFailure, on: .initiate)

        let reset = try await served.control("POST", "/reset")
        #expect(reset.status == 200)
        #expect(reset["users"] as? Int == 4)
        #expect(served.tenant.users.map(\.username) == [Fixture.ada, Fixture.alan, Fixture.grace, Fixture.linus])
        #expect(served.tenant.outbox.isEmpty)
        #expect(served.tenant.receivedRequests.isEmpty)
        let initiate = try await served.harness.postPairs(
            .initiate, [("username", Fixture.ada), ("challenge_type", "oob redirect")])
        #expect(initiate.status == 200)  // the forced fault is gone
        let refresh = try await served.harness.post(
            .token,
            ["grant_type": "refresh_token", "refresh_token": signedIn["refresh_token"], "scope": Fixture.scopes])
        #expect(refresh.error == "invalid_grant")  // sessions issued after the start are gone
        await served.server.stop()
    }

    @Test("snapshot: read it, restore it; malformed is 400, another tenant's is 409")
    func snapshots() async throws {
        let served = try ServedTenant()
        let snapshot = try await served.transport.send(
            HTTPRequest(
                method: "GET", url: #require(URL(string: served.server.controlURL.absoluteString + "/snapshot"))))
        #expect(snapshot.statusCode == 200)
        #expect(snapshot.body == served.tenant.snapshot())

        served.tenant.removeUser(named: Fixture.ada)
        let restored = try await served.control("PUT", "/snapshot", String(decoding: snapshot.body, as: UTF8.self))
        #expect(restored.status == 200)
        #expect(restored["users"] as? Int == 4)
        #expect(served.tenant.user(named: Fixture.ada) != nil)

        let emptied = try await served.control("POST", "/snapshot", #"{"format":1,"users":[],"refreshTokens":[]}"#)
        #expect(emptied["users"] as? Int == 0)
        let malformed = try await served.control("PUT", "/snapshot", #"{"users":[]}"#)
        #expect(malformed.status == 400)
        #expect(malformed.error == "snapshot_malformed")
        let other = EmulatedTenant(tenantSubdomain: "fabrikam").snapshot()
        let foreign = try await served.control("PUT", "/snapshot", String(decoding: other, as: UTF8.self))
        #expect(foreign.status == 409)
        #expect(foreign.error == "snapshot_otherTenant")
        #expect(served.tenant.users.isEmpty)
        await served.server.stop()
    }
}
