import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// Every way a push can fail ends the sign-in with a typed error, before the browser opens, with
/// nothing stored and no secret in the error or the logs.
@Suite("Web sign-in: a pushed authorization request that fails", .hangLimit)
struct PushedAuthorizationErrorTests {
    let harness = PARClient()
    static let secret = "par-client-secret-7Qw"

    /// The question a failure answers.
    enum Kind: String, Sendable {
        case server, configuration, unexpected, network
    }

    static func json(_ status: Int, _ body: String) -> HTTPResponse { ScriptedOpenIDProvider.json(status, body) }

    static let answers: [(String, HTTPResponse?, Kind, String?)] = [
        (
            "400 invalid_request", json(400, #"{"error":"invalid_request","error_description":"bad scope"}"#), .server,
            "invalid_request"
        ),
        ("400 invalid_client", json(400, #"{"error":"invalid_client"}"#), .configuration, "invalid_client"),
        ("401 invalid_client", json(401, #"{"error":"invalid_client"}"#), .configuration, "invalid_client"),
        (
            "400 unauthorized_client", json(400, #"{"error":"unauthorized_client"}"#), .configuration,
            "unauthorized_client"
        ),
        ("400 invalid_scope", json(400, #"{"error":"invalid_scope"}"#), .configuration, "invalid_scope"),
        ("401 bare", HTTPResponse(statusCode: 401), .configuration, nil),
        ("403 bare (glewlwyd)", HTTPResponse(statusCode: 403), .configuration, nil),
        ("429", HTTPResponse(statusCode: 429, headers: ["Retry-After": "5"]), .server, nil),
        ("500", HTTPResponse(statusCode: 500), .server, nil),
        ("503 page", HTTPResponse(statusCode: 503, body: Data("<html>down</html>".utf8)), .server, nil),
        ("500 with an OAuth error", json(500, #"{"error":"server_error"}"#), .server, "server_error"),
        ("302", HTTPResponse(statusCode: 302, headers: ["Location": "https://elsewhere.example"]), .unexpected, nil),
        ("400 bare", HTTPResponse(statusCode: 400), .unexpected, nil),
        ("413 bare", HTTPResponse(statusCode: 413), .unexpected, nil),
        ("201 malformed JSON", json(201, #"{"request_uri":"urn:x""#), .unexpected, nil),
        ("201 not an object", json(201, #"["urn:x",60]"#), .unexpected, nil),
        ("201 empty", HTTPResponse(statusCode: 201), .unexpected, nil),
        ("201 no request_uri", json(201, #"{"expires_in":60}"#), .unexpected, nil),
        ("201 empty request_uri", json(201, #"{"request_uri":"","expires_in":60}"#), .unexpected, nil),
        ("201 numeric request_uri", json(201, #"{"request_uri":17,"expires_in":60}"#), .unexpected, nil),
        ("201 no expires_in", json(201, #"{"request_uri":"urn:x"}"#), .unexpected, nil),
        ("201 expires_in 0", json(201, #"{"request_uri":"urn:x","expires_in":0}"#), .unexpected, nil),
        ("201 expires_in negative", json(201, #"{"request_uri":"urn:x","expires_in":-60}"#), .unexpected, nil),
        ("201 expires_in fractional", json(201, #"{"request_uri":"urn:x","expires_in":59.5}"#), .unexpected, nil),
        ("201 expires_in a string", json(201, #"{"request_uri":"urn:x","expires_in":"60"}"#), .unexpected, nil),
        ("201 expires_in null", json(201, #"{"request_uri":"urn:x","expires_in":null}"#), .unexpected, nil),
        ("201 expires_in huge", json(201, #"{"request_uri":"urn:x","expires_in":1e300}"#), .unexpected, nil),
        (
            "201 over 1 MiB",
            json(
                201, #"{"request_uri":"urn:x","expires_in":60,"pad":""# + String(repeating: "a", count: 1 << 20) + "\"}"
            ),
            .unexpected, nil
        ),
        ("no answer", nil, .network, nil),
    ]

    @Test("a failed push is typed", arguments: answers)
    func aFailedPushIsTyped(name: String, answer: HTTPResponse?, kind: Kind, serverError: String?) async throws {
        let provider = ScriptedOpenIDProvider(
            endpoints: .standard(par: true), tokenAnswer: ScriptedOpenIDProvider.signingIn())
        provider.parAnswer.withLock {
            $0 = { _ in
                guard let answer else { throw URLError(.timedOut) }
                return answer
            }
        }
        let client = try harness.make(provider, authentication: .clientSecretPost(Self.secret))
        let agent = InstantAgent(provider: provider)
        let correlationId = UUID()
        var parameters = WebSignInParameters()
        parameters.correlationId = correlationId
        do {
            _ = try await client.signIn(parameters, using: agent)
            Issue.record("\(name): expected a failure")
            return
        } catch {
            switch kind {
            case .server: #expect(error.isServerError && !error.isConfigurationError, "\(name): \(error)")
            case .configuration: #expect(error.isConfigurationError && error.isServerError, "\(name): \(error)")
            case .unexpected: #expect(error.isUnexpectedResponse, "\(name): \(error)")
            case .network:
                #expect(error.isNetworkError, "\(name): \(error)")
                #expect(error.endpoint == .pushedAuthorizationRequest)
            }
            #expect(error.serverError == serverError, "\(name)")
            #expect(error.correlationId == correlationId, "\(name)")
            if let answer, kind != .network { #expect(error.httpStatusCode == answer.statusCode, "\(name)") }
            #expect(error.description.contains("pushed authorization request failed"), "\(name): \(error)")
            #expect(!error.isExpired && !error.isInvalidGrant, "\(name)")
            let rendered = [error.description, error.debugDescription, error.errorDescription ?? ""]
            for text in rendered {
                #expect(!text.contains(Self.secret), "\(name): the secret in \(text)")
            }
        }
        #expect(provider.count("/par") == 1, "\(name): sent once, never retried")
        #expect(agent.shownURLs.isEmpty, "\(name): no browser")
        #expect(provider.count("/token") == 0, "\(name)")
        #expect(try await harness.storesNothing(), "\(name): nothing stored")
        #expect(try await client.currentAccount() == nil)
        let logs = harness.logger.records.map(\.description).joined(separator: "\n")
        #expect(!logs.contains(Self.secret), "\(name)")
    }

    @Test func anyAnswerIsReadOrRefusedNeverACrash() {
        let valid = #"{"request_uri":"urn:ietf:params:oauth:request_uri:6esc_11ACC5bwc014ltc14eY22c","expires_in":60}"#
        var bodies = (0...valid.utf8.count).map { Data(valid.utf8.prefix($0)) }
        var random = SplitMix64(seed: 9126)
        for _ in 0..<300 {
            var bytes = Array(valid.utf8)
            for _ in 0..<(1 + Int(random.next() % 4)) {
                bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            bodies.append(Data(bytes))
        }
        var read = 0
        for body in bodies {
            for status in [200, 201, 400, 401, 503] {
                let response = HTTPResponse(statusCode: status, body: body)
                do {
                    let answer = try PushedAuthorizationAnswer(response, correlationId: nil)
                    #expect(!answer.requestURI.isEmpty && answer.expiresIn > 0 && (200...299).contains(status))
                    read += 1
                } catch {
                    #expect(error.description.contains("pushed authorization request failed"))
                }
            }
        }
        #expect(read >= 2, "the whole answer is read, at 200 and 201")
    }

    @Test func aRequestURIThatExpiresBeforeTheBrowserOpensIsNeverShown() async throws {
        let provider = ScriptedOpenIDProvider(
            endpoints: .standard(par: true), tokenAnswer: ScriptedOpenIDProvider.signingIn())
        let clock = harness.clock
        // The provider takes the request_uri's whole lifetime to answer.
        let push = provider.pushing(expiresIn: "30")
        provider.parAnswer.withLock {
            $0 = { request in
                clock.advance(by: 30)
                return push(request)
            }
        }
        let client = try harness.make(provider)
        let agent = InstantAgent(provider: provider)
        do {
            _ = try await client.signIn(WebSignInParameters(), using: agent)
            Issue.record("expected an expired request_uri")
        } catch {
            #expect(error.isExpired, "\(error)")
            #expect(!error.isServerError, "the provider refused nothing")
            #expect(error.description.contains("expired"))
        }
        #expect(agent.shownURLs.isEmpty && provider.count("/token") == 0)
        #expect(try await harness.storesNothing())
        #expect(harness.logger.records.contains { $0.message.contains("expired before the browser opened") })

        // A second short of the lifetime, the browser opens.
        provider.parAnswer.withLock {
            $0 = { request in
                clock.advance(by: 29)
                return push(request)
            }
        }
        _ = try await client.signIn(WebSignInParameters(), using: agent)
        #expect(agent.values("request_uri").count == 1)
    }

    @Test func aRequestURIRefusedAtTheAuthorizationEndpointIsExpired() async throws {
        // The provider sends the browser back with invalid_request_uri (RFC 9126 §4, RFC 9101 §6.2).
        struct RefusedAgent: ExternalUserAgent {
            let provider: ScriptedOpenIDProvider
            func authorize(url: URL, redirectURI: URL) async throws -> URL {
                let requestURI = queryPairs(url).first { $0.hasPrefix("request_uri=") }.map { String($0.dropFirst(12)) }
                let state = provider.takePushed(requestURI ?? "")?.first { $0.name == "state" }?.value ?? ""
                return URL(string: redirectURI.absoluteString + "?error=invalid_request_uri&state=\(state)")!
            }
        }
        let provider = ScriptedOpenIDProvider(
            endpoints: .standard(par: true), tokenAnswer: ScriptedOpenIDProvider.signingIn())
        let client = try harness.make(provider)
        do {
            _ = try await client.signIn(WebSignInParameters(), using: RefusedAgent(provider: provider))
            Issue.record("expected a refusal")
        } catch {
            #expect(error.isExpired && error.isServerError, "\(error)")
            #expect(error.serverError == "invalid_request_uri")
        }
        #expect(provider.count("/token") == 0)
        #expect(try await harness.storesNothing())
    }

    @Test func aPushThatNeverAnswersEndsByTheRequestDeadline() async throws {
        let provider = ScriptedOpenIDProvider(
            endpoints: .standard(par: true), tokenAnswer: ScriptedOpenIDProvider.signingIn())
        let deaf = DeafPathTransport(provider)
        defer { deaf.release() }
        deaf.deafen("/par")
        let agent = InstantAgent(provider: provider)
        let client = try harness.make(deaf, timeout: 0.5)
        do {
            _ = try await client.signIn(WebSignInParameters(), using: agent)
            Issue.record("expected a timeout")
        } catch {
            #expect(error.isNetworkError, "\(error)")
            #expect(error.endpoint == .pushedAuthorizationRequest)
            #expect((error.underlyingError as? URLError)?.code == .timedOut)
        }
        #expect(deaf.heldCount == 1)
        #expect(agent.shownURLs.isEmpty)
        #expect(try await harness.storesNothing())
    }

    @Test func aCancelledSignInPushesNothing() async throws {
        let provider = ScriptedOpenIDProvider(
            endpoints: .standard(par: true), tokenAnswer: ScriptedOpenIDProvider.signingIn())
        let gate = GatedTransport(provider)
        gate.close()
        let client = try harness.make(gate)
        let task = Task { try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider)) }
        await gate.waitUntilHeld(1)
        task.cancel()
        gate.open()
        do {
            _ = try await task.value
            Issue.record("expected a cancellation")
        } catch let error as WebSignInError {
            #expect(error.isCancelled, "\(error)")
        }
        #expect(provider.count("/par") == 0, "the cancelled task sent nothing after discovery")
        #expect(try await harness.storesNothing())
    }
}
