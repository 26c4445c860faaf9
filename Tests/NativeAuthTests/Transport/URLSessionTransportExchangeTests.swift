import Foundation
import LoopbackHTTP
import NativeAuth
import NativeAuthTestSupport
import Testing

/// Requests and responses travel over real HTTP on 127.0.0.1 exactly as given.
@Suite("URLSessionTransport: requests and responses", .hangLimit)
struct URLSessionTransportExchangeTests {
    @Test("a POST arrives with its method, target, headers and body exactly")
    func postArrivesExactly() async throws {
        let server = try ScriptedHTTPServer { _ in .text(200, "{}") }
        defer { server.stop() }
        let body = Data(#"{"username":"ada@example.com","grant_type":"password"}"#.utf8)
        let request = HTTPRequest(
            method: "POST",
            url: server.url("/tenant/oauth2/v2.0/initiate?dc=ESTS-PUB&x=1%202"),
            headers: [
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
                "X-Client-Request-Id": "7d6f1c2e-5c0a-4d3b-9f3e-2b1a0c9d8e7f",
                "x-ms-lowercase": "Mixed Case Value",
            ],
            body: body
        )

        _ = try await URLSessionTransport(timeout: TestBounds.requestDeadline).send(request)

        let received = try #require(server.requests.first)
        #expect(server.requests.count == 1)
        #expect(received.method == "POST")
        #expect(received.target == "/tenant/oauth2/v2.0/initiate?dc=ESTS-PUB&x=1%202")
        #expect(received.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(received.header("Accept") == "application/json")
        #expect(received.header("X-Client-Request-Id") == "7d6f1c2e-5c0a-4d3b-9f3e-2b1a0c9d8e7f")
        #expect(received.header("X-MS-Lowercase") == "Mixed Case Value")
        #expect(received.headers(named: "Content-Type").count == 1)
        #expect(received.header("Content-Length") == String(body.count))
        #expect(received.header("Cookie") == nil)
        #expect(Data(received.body) == body)
    }

    @Test("a GET arrives with no body")
    func getHasNoBody() async throws {
        let server = try ScriptedHTTPServer { _ in .text(200, "ok") }
        defer { server.stop() }

        _ = try await URLSessionTransport(timeout: TestBounds.requestDeadline).send(
            HTTPRequest(method: "GET", url: server.url("/discovery")))

        let received = try #require(server.requests.first)
        #expect(received.method == "GET")
        #expect(received.path == "/discovery")
        #expect(received.body.isEmpty)
    }

    @Test("the status, headers and body of the response come back")
    func responseComesBack() async throws {
        let json = #"{"continuation_token":"abc","challenge_type":"oob"}"#
        let server = try ScriptedHTTPServer { _ in
            .text(
                200, json,
                headers: [
                    ("Content-Type", "application/json; charset=utf-8"),
                    ("X-Custom-Header", "Value-1"),
                    ("x-ms-request-id", "req-42"),
                ])
        }
        defer { server.stop() }

        let response = try await URLSessionTransport(timeout: TestBounds.requestDeadline).send(
            HTTPRequest(method: "GET", url: server.url("/")))

        #expect(response.statusCode == 200)
        #expect(response.header("content-type") == "application/json; charset=utf-8")
        #expect(response.header("CONTENT-TYPE") == "application/json; charset=utf-8")
        #expect(response.header("x-custom-header") == "Value-1")
        #expect(response.header("X-MS-REQUEST-ID") == "req-42")
        #expect(response.headers.keys.contains { $0.caseInsensitiveCompare("Content-Length") == .orderedSame })
        #expect(response.body == Data(json.utf8))
    }

    @Test("an error status comes back with its body instead of being thrown", arguments: [400, 401, 404, 500, 503])
    func errorStatusIsReturned(status: Int) async throws {
        let json = #"{"error":"invalid_grant","error_codes":[50126]}"#
        let server = try ScriptedHTTPServer { _ in
            .text(status, json, headers: [("Content-Type", "application/json")])
        }
        defer { server.stop() }

        let response = try await URLSessionTransport(timeout: TestBounds.requestDeadline).send(
            HTTPRequest(method: "POST", url: server.url("/token"), body: Data("x=1".utf8)))

        #expect(response.statusCode == status)
        #expect(response.header("Content-Type") == "application/json")
        #expect(response.body == Data(json.utf8))
    }

    @Test(
        "a 401 with an authentication challenge comes back with its body",
        arguments: [
            #"Basic realm="tenant""#, #"Bearer realm="x", error="invalid_token""#, #"Bearer error="invalid_token""#,
            "Negotiate",
        ]
    )
    func challengeIsReturned(challenge: String) async throws {
        let server = try ScriptedHTTPServer { _ in
            .text(401, #"{"error":"invalid_client"}"#, headers: [("WWW-Authenticate", challenge)])
        }
        defer { server.stop() }

        let response = try await URLSessionTransport(timeout: TestBounds.requestDeadline).send(
            HTTPRequest(method: "POST", url: server.url("/token"), body: Data("x=1".utf8)))

        #expect(response.statusCode == 401)
        #expect(response.header("www-authenticate") == challenge)
        #expect(response.body == Data(#"{"error":"invalid_client"}"#.utf8))
        #expect(server.requests.count == 1)
        #expect(server.requests.first?.header("Authorization") == nil)
    }

    @Test("response header names keep the case the server sent them in")
    func headerNameCase() async throws {
        let server = try ScriptedHTTPServer { _ in
            .text(200, "", headers: [("x-lower-case", "v"), ("X-Mixed-CASE", "w")])
        }
        defer { server.stop() }

        let response = try await URLSessionTransport(timeout: TestBounds.requestDeadline).send(
            HTTPRequest(method: "GET", url: server.url("/")))

        #expect(response.header("X-Lower-Case") == "v")
        #expect(response.header("x-mixed-case") == "w")
        #if canImport(FoundationNetworking)
            // FoundationNetworking keeps names as sent; Apple platforms may normalise their case.
            #expect(response.headers["x-lower-case"] == "v")
            #expect(response.headers["X-Mixed-CASE"] == "w")
        #endif
    }

    @Test("an empty body comes back empty", arguments: [200, 204])
    func emptyBody(status: Int) async throws {
        let server = try ScriptedHTTPServer { _ in .text(status, "") }
        defer { server.stop() }

        let response = try await URLSessionTransport(timeout: TestBounds.requestDeadline).send(
            HTTPRequest(method: "GET", url: server.url("/empty")))

        #expect(response.statusCode == status)
        #expect(response.body.isEmpty)
    }

    @Test("a 1 MB body goes out and comes back intact")
    func largeBody() async throws {
        let server = try ScriptedHTTPServer { request in
            .respond(status: 200, headers: [("Content-Type", "application/octet-stream")], body: Data(request.body))
        }
        defer { server.stop() }
        let payload = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })

        let response = try await URLSessionTransport(timeout: TestBounds.requestDeadline).send(
            HTTPRequest(
                method: "POST", url: server.url("/echo"),
                headers: ["Content-Type": "application/octet-stream"], body: payload))

        #expect(server.requests.first.map { Data($0.body) } == payload)
        #expect(response.statusCode == 200)
        #expect(response.body.count == payload.count)
        #expect(response.body == payload)
    }

    @Test("20 concurrent requests on one transport all get their own answer")
    func concurrentRequests() async throws {
        let server = try ScriptedHTTPServer { request in .text(200, "answer for \(request.path)") }
        defer { server.stop() }
        let transport = URLSessionTransport(timeout: TestBounds.requestDeadline)

        let bodies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<20 {
                group.addTask {
                    let response = try await transport.send(
                        HTTPRequest(method: "POST", url: server.url("/item/\(index)"), body: Data("\(index)".utf8)))
                    #expect(response.statusCode == 200)
                    return (index, String(decoding: response.body, as: UTF8.self))
                }
            }
            var bodies: [Int: String] = [:]
            for try await (index, body) in group { bodies[index] = body }
            return bodies
        }

        #expect(bodies.count == 20)
        for index in 0..<20 {
            #expect(bodies[index] == "answer for /item/\(index)")
        }
        #expect(Set(server.requests.map(\.path)).count == 20)
    }

    @Test("cookies are neither stored nor sent")
    func noCookies() async throws {
        let server = try ScriptedHTTPServer { _ in
            .text(200, "ok", headers: [("Set-Cookie", "session=abc123; Path=/"), ("Set-Cookie", "other=1; Path=/")])
        }
        defer { server.stop() }
        let transport = URLSessionTransport(timeout: TestBounds.requestDeadline)

        _ = try await transport.send(HTTPRequest(method: "GET", url: server.url("/first")))
        _ = try await transport.send(HTTPRequest(method: "GET", url: server.url("/second")))

        let requests = server.requests
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0.header("Cookie") == nil })
    }

    @Test("identical GETs are both sent: nothing is cached")
    func noCache() async throws {
        let counter = LockedValue(0)
        let server = try ScriptedHTTPServer { _ in
            let count = counter.withLock {
                $0 += 1
                return $0
            }
            return .text(200, "answer \(count)", headers: [("Cache-Control", "public, max-age=3600")])
        }
        defer { server.stop() }
        let transport = URLSessionTransport(timeout: TestBounds.requestDeadline)

        let first = try await transport.send(HTTPRequest(method: "GET", url: server.url("/config")))
        let second = try await transport.send(HTTPRequest(method: "GET", url: server.url("/config")))

        #expect(server.requests.count == 2)
        #expect(String(decoding: first.body, as: UTF8.self) == "answer 1")
        #expect(String(decoding: second.body, as: UTF8.self) == "answer 2")
    }

    @Test("the timeout given is the timeout applied")
    func timeoutIsApplied() {
        #expect(URLSessionTransport().timeout == 30)
        #expect(URLSessionTransport.defaultTimeout == 30)
        #expect(URLSessionTransport(timeout: 12).timeout == 12)
        #expect(URLSessionTransport(timeout: 0).timeout == 30)
        #expect(URLSessionTransport(timeout: -1).timeout == 30)
        #expect(URLSessionTransport(timeout: .nan).timeout == 30)
        #if canImport(FoundationNetworking)
            #expect(URLSessionTransport(timeout: 0.5).timeout == 1)
        #else
            #expect(URLSessionTransport(timeout: 0.5).timeout == 0.5)
        #endif
    }
}
