import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@Suite("Forced answers", .hangLimit)
struct ForcedAnswerTests {
    let initiateFields: KeyValuePairs<String, String> = ["username": Fixture.ada, "challenge_type": "oob redirect"]

    @Test func forcedErrorThenRealAnswer() async throws {
        let harness = Harness()
        harness.tenant.force(
            .error("invalid_client", suberror: "nativeauthapi_disabled", codes: [550022]), on: .initiate, times: 2)
        for _ in 0..<2 {
            let reply = try await harness.post(.initiate, initiateFields)
            expectError(reply, "invalid_client", code: 550022, suberror: "nativeauthapi_disabled")
            #expect(reply.response.header("client-request-id") == "00000000-1111-2222-3333-444444444444")
        }
        #expect(try await harness.post(.initiate, initiateFields).status == 200)
        #expect(harness.tenant.receivedRequests.count == 3)
    }

    @Test func forcedErrorWithStatusAndDescription() async throws {
        let harness = Harness()
        harness.tenant.force(.error("server_error", description: "Boom.", status: 503), on: .token)
        let reply = try await harness.post(.token, ["grant_type": "refresh_token"])
        #expect(reply.status == 503)
        #expect(reply.error == "server_error")
        #expect(reply["error_description"] == "Boom.")
        #expect(!reply.has("error_codes") && !reply.has("suberror"))
    }

    @Test func forcedRedirect() async throws {
        let harness = Harness()
        harness.tenant.force(.redirect(reason: "Policy says browser."), on: .signUpStart)
        let reply = try await harness.post(.signUpStart, ["username": "x@y.com", "challenge_type": "oob redirect"])
        #expect(reply.text == #"{"challenge_type":"redirect","redirect_reason":"Policy says browser."}"#)
        harness.tenant.force(.redirect(), on: .signUpStart)
        expectRedirect(try await harness.post(.signUpStart, ["username": "x@y.com", "challenge_type": "oob redirect"]))
    }

    @Test func forcedRawAnswerIsSentAsIs() async throws {
        let harness = Harness()
        let html = Data("<html><body>Service Unavailable</body></html>".utf8)
        harness.tenant.force(.raw(status: 502, headers: ["Content-Type": "text/html"], body: html), on: .challenge)
        let response = try await harness.tenant.send(
            HTTPRequest(method: "POST", url: harness.tenant.url(for: .challenge)))
        #expect(response == HTTPResponse(statusCode: 502, headers: ["Content-Type": "text/html"], body: html))
    }

    @Test func forcedNetworkFailureThrowsAndIsRecorded() async throws {
        let harness = Harness()
        harness.tenant.force(.networkFailure, on: .resource)
        await #expect(throws: URLError.self) { try await harness.me("anything") }
        #expect(harness.tenant.receivedRequests.count == 1)
        #expect(try await harness.me(nil).status == 401)
    }

    @Test func forcedAnswersQueueInOrderAndChangeNothing() async throws {
        let harness = Harness()
        harness.tenant.force(.redirect(), on: .challenge)
        harness.tenant.force(.error("expired_token", codes: [552003]), on: .challenge)
        harness.tenant.force(.networkFailure, on: .challenge, times: 0)
        let initiate = try await harness.post(.initiate, ["username": Fixture.grace, "challenge_type": "oob redirect"])
        let fields: KeyValuePairs<String, String> = [
            "continuation_token": initiate["continuation_token"], "challenge_type": "oob redirect",
        ]
        expectRedirect(try await harness.post(.challenge, fields))
        expectError(try await harness.post(.challenge, fields), "expired_token", code: 552003)
        #expect(harness.tenant.outbox.isEmpty)
        // The flow was untouched: the same token still works.
        #expect(try await harness.post(.challenge, fields)["challenge_type"] == "oob")
    }
}
