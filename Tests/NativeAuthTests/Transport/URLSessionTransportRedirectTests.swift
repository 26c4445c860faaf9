import Foundation
import LoopbackHTTP
import NativeAuth
import NativeAuthTestSupport
import Testing

/// A redirect comes back to the caller as the response it is; the transport never follows it.
@Suite("URLSessionTransport: redirects", .hangLimit)
struct URLSessionTransportRedirectTests {
    @Test("a 302 with Location comes back as a 302 and the target receives nothing")
    func foundIsReturned() async throws {
        let target = try ScriptedHTTPServer { _ in .text(200, "you followed the redirect") }
        defer { target.stop() }
        let location = target.url("/landing?code=secret").absoluteString
        let origin = try ScriptedHTTPServer { _ in
            .text(302, "moved", headers: [("Location", location), ("X-Origin", "yes")])
        }
        defer { origin.stop() }

        let response = try await URLSessionTransport(timeout: TestBounds.requestDeadline).send(
            HTTPRequest(method: "GET", url: origin.url("/authorize")))

        #expect(response.statusCode == 302)
        #expect(response.header("location") == location)
        #expect(response.header("X-Origin") == "yes")
        #expect(String(decoding: response.body, as: UTF8.self) == "moved")
        #expect(origin.requests.count == 1)
        #expect(target.requests.isEmpty)
    }

    @Test("every redirect status is returned for a POST, never followed", arguments: [301, 302, 303, 307, 308])
    func redirectStatusesAreReturned(status: Int) async throws {
        let target = try ScriptedHTTPServer { _ in .text(200, "followed") }
        defer { target.stop() }
        let location = target.url("/elsewhere").absoluteString
        let origin = try ScriptedHTTPServer { _ in .text(status, "see \(status)", headers: [("Location", location)]) }
        defer { origin.stop() }

        let response = try await URLSessionTransport(timeout: TestBounds.requestDeadline).send(
            HTTPRequest(method: "POST", url: origin.url("/token"), body: Data("grant_type=password".utf8)))

        #expect(response.statusCode == status)
        #expect(response.header("Location") == location)
        #expect(String(decoding: response.body, as: UTF8.self) == "see \(status)")
        #expect(origin.requests.count == 1)
        #expect(target.requests.isEmpty)
    }

    @Test("a relative Location on the same server is not followed either")
    func relativeLocationIsReturned() async throws {
        let server = try ScriptedHTTPServer { request in
            request.path == "/start" ? .text(307, "", headers: [("Location", "/next")]) : .text(200, "followed")
        }
        defer { server.stop() }

        let response = try await URLSessionTransport(timeout: TestBounds.requestDeadline).send(
            HTTPRequest(method: "GET", url: server.url("/start")))

        #expect(response.statusCode == 307)
        #expect(response.header("Location") == "/next")
        #expect(server.requests.map(\.path) == ["/start"])
    }
}
