import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Nothing secret is reachable by reflection: `Mirror` walked over everything an app holds after
/// signing in (web and native clients, accounts, sessions, states, results and errors), with every
/// child, superclass and object followed, finds no token, code, password, continuation token or
/// private key, while it does reach the username next to them.
@Suite("Reflection reaches no secret", .hangLimit)
struct ReflectionTests {
    static let redirect = URL(string: "msauth.com.example.app://auth")!
    let harness = EmulatorHarness()
    var tenant: EmulatedTenant { harness.tenant }

    /// The tenant, remembering every secret it answered with.
    final class AnswerRecorder: HTTPTransport, ServerClockTransport {
        let tenant: EmulatedTenant
        let secrets = LockedValue<Set<String>>([])
        init(tenant: EmulatedTenant) { self.tenant = tenant }

        var serverClock: any NativeAuthClock { tenant.serverClock }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let response = try await tenant.send(request)
            if let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any] {
                let keys = ["access_token", "refresh_token", "id_token", "continuation_token", "code"]
                let found = keys.compactMap { object[$0] as? String }
                secrets.withLock { $0.formUnion(found) }
            }
            return response
        }
    }

    /// The walk over `values`, with every secret the run saw.
    func walk(_ values: [(String, Any)], extraSecrets: Set<String>, keyBytes: [Data] = []) -> ReflectionWalk {
        let secrets = harness.secretsSeen(extra: Array(extraSecrets))
        var walk = ReflectionWalk(secrets: Array(secrets), secretBytes: keyBytes, marker: "ada@example.com")
        for (name, value) in values { walk.walk(value, path: name) }
        return walk
    }

    @Test func aSignedInWebClientWithDPoPShowsNoSecret() async throws {
        tenant.configure {
            $0.pushedAuthorizationRequests = .required
            $0.dpop = .required
        }
        let recorder = AnswerRecorder(tenant: tenant)
        let keys = FixtureKeyProvider()
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.dpop = DPoPConfiguration(keyProvider: keys)
        let client = try WebAuthClient(
            issuer: tenant.issuer, clientId: tenant.clientId, redirectURI: Self.redirect, transport: recorder,
            credentialStore: harness.store, configuration: configuration)
        let browser = EmulatedBrowser(tenant: tenant, password: EmulatorHarness.password)
        let account = try await client.signIn(
            WebSignInParameters(scopes: ["offline_access"], loginHint: "ada@example.com"), using: browser)
        let token = try await account.getAccessToken()
        let refreshed = try await account.getAccessToken(forceRefresh: true)
        let request = try await account.authorize(URLRequest(url: tenant.url(for: .resource)))
        let session = await AuthSession(client: client)
        await session.restore()
        let snapshot = await session.snapshot
        let error = await #expect(throws: WebSignInError.self) {
            try await client.signIn(
                WebSignInParameters(scopes: ["offline_access"], loginHint: "nobody@example.com"),
                using: EmulatedBrowser(tenant: tenant, password: "Wr0ng-Password!"))
        }
        let walk = walk(
            [
                ("client", client), ("account", account), ("token", token), ("refreshed", refreshed),
                ("session", session), ("snapshot", snapshot), ("error", error as Any),
                ("configuration", configuration),
                // What the client holds inside, walked too: a mirror of the client hiding them is
                // not enough, each must hide its own secrets.
                ("provider", client.provider), ("dpop", client.provider.dpop as Any),
                ("accounts", client.accounts), ("record", await client.accounts.record as Any),
                ("store", harness.store),
            ],
            extraSecrets: recorder.secrets.withLock { $0 }.union(["Wr0ng-Password!"]),
            keyBytes: FixtureKeyProvider.keys.map { $0.suffix(300) })
        #expect(recorder.secrets.withLock { $0.count } >= 4, "the run saw its tokens")
        #expect(request.value(forHTTPHeaderField: "DPoP") != nil)
        #expect(walk.markerSeen, "the walk reached the username")
        #expect(walk.nodes > 150, "the walk went deep: \(walk.nodes) nodes")
        #expect(walk.leaks.isEmpty, "\(walk.leaks.prefix(20).joined(separator: "\n"))")
    }

    @Test func aSignedInNativeClientShowsNoSecret() async throws {
        let recorder = AnswerRecorder(tenant: tenant)
        var configuration = try NativeAuthConfiguration(
            clientId: tenant.clientId, authority: tenant.authority, challengeTypes: [.oob, .password],
            capabilities: [.mfaRequired, .registrationRequired])
        configuration.clock = harness.clock
        configuration.requestTimeout = TestBounds.requestDeadline
        let client = NativeAuthClient(configuration: configuration, transport: recorder, credentialStore: harness.store)
        var values: [(String, Any)] = [("client", client), ("configuration", configuration)]
        let start = try await client.signIn(SignInParameters(username: "ada@example.com"))
        values.append(("start", start))
        guard case .passwordRequired(let state) = start else {
            Issue.record("expected a password state, got \(start)")
            return
        }
        values.append(("state", state))
        do {
            _ = try await state.submitPassword("Wr0ng-Password!")
        } catch {
            values.append(("wrong password", error))
        }
        let signedIn = try await state.submitPassword(EmulatorHarness.password)
        values.append(("signed in", signedIn))
        let code = try await client.signIn(SignInParameters(username: "grace@example.com"))
        values.append(("code start", code))
        if case .codeRequired(let codeState, _, _, _) = code {
            values.append(("code state", codeState))
            do {
                _ = try await codeState.submitCode("99999999")
            } catch {
                values.append(("wrong code", error))
            }
        }
        guard let account = try await client.currentAccount() else {
            Issue.record("no account")
            return
        }
        values.append(("account", account))
        values.append(("token", try await account.getAccessToken(forceRefresh: true)))
        let session = await AuthSession(client: client)
        await session.restore()
        values.append(("session", session))
        values.append(("snapshot", await session.snapshot))
        values += [
            ("core", client.core), ("wire", client.core.wire), ("accounts", client.core.accounts),
            ("record", await client.core.accounts.record as Any), ("store", harness.store),
        ]
        let walk = walk(values, extraSecrets: recorder.secrets.withLock { $0 }.union(["Wr0ng-Password!", "99999999"]))
        #expect(recorder.secrets.withLock { $0.count } >= 4, "the run saw its tokens")
        #expect(walk.markerSeen, "the walk reached the username")
        #expect(walk.nodes > 150, "the walk went deep: \(walk.nodes) nodes")
        #expect(walk.leaks.isEmpty, "\(walk.leaks.prefix(20).joined(separator: "\n"))")
    }

    /// Every actor of the SDK reflects nothing of its state: a `Mirror` would read it off the actor.
    @Test func everyActorHidesItsState() throws {
        let sources = ArchitectureTests.sources
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)?.allObjects as? [String])
        let texts = try files.filter { $0.hasSuffix(".swift") }.map {
            try String(contentsOf: sources.appendingPathComponent($0), encoding: .utf8)
        }
        let whole = texts.joined(separator: "\n")
        let modifiers: Set<String> = ["public", "package", "final", "private", "fileprivate"]
        let actors = texts.flatMap { text in
            text.split(separator: "\n").compactMap { line -> String? in
                let words = line.split(separator: " ").map(String.init)
                guard let index = words.firstIndex(of: "actor"), index + 1 < words.count,
                    words[..<index].allSatisfy(modifiers.contains)
                else { return nil }
                return String(words[index + 1].prefix { $0.isLetter || $0.isNumber })
            }
        }
        #expect(actors.count >= 5, "\(actors)")
        for name in actors {
            #expect(whole.contains("extension \(name): CustomReflectable"), "\(name) is reflected")
        }
    }
}
