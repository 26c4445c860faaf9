// The samples of Docs/Sessions.md (but the SwiftUI view: SessionsAuthSessionSample.swift), and the
// tests that run them against an emulated tenant.

import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// snippet: sessions-launch-screen
enum LaunchScreen {
    case home(UserAccountResult)
    case signIn
    case storeUnavailable
}

func launchScreen(client: NativeAuthClient) async -> LaunchScreen {
    do {
        guard let account = try await client.currentAccount() else {
            return .signIn  // nobody is signed in
        }
        return .home(account)
    } catch {
        // A CredentialStoreError: the store cannot be read right now, for example on a device
        // still locked after a restart. It is not a sign-out: ask again later.
        return .storeUnavailable
    }
}
// snippet: end

// snippet: sessions-sign-out-for-good
func signOutForGood(_ account: UserAccountResult) async -> Bool {
    var result = await account.signOut()
    if result.wasSignedIn && !result.removedFromStore {
        result = await account.signOut()  // one more try, as the app sees fit
    }
    return result.removedFromStore
}
// snippet: end

// snippet: sessions-auth-session
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
func greeting(client: NativeAuthClient) async -> String {
    let session = AuthSession(client: client)  // restores the stored account by itself
    await session.restore()  // here, to wait for it: no request is sent
    guard let account = session.account else { return "Please sign in" }
    return "Welcome back, \(account.account.username)"
}
// snippet: end

// snippet: sessions-changes
/// The root of an app that does not use SwiftUI: shows the sign-in screen or the signed-in app as
/// the session changes, until `stop()` (when the screen goes away).
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
final class RootScreen {
    private var following: Task<Void, Never>?
    private let show: @MainActor (UserAccountResult?) -> Void  // nil: the sign-in screen

    init(show: @escaping @MainActor (UserAccountResult?) -> Void) { self.show = show }

    func follow(_ session: AuthSession) {
        following = Task { [show] in
            for await state in session.changes() where !state.isRestoring {
                show(state.account)
            }
        }
    }

    func stop() { following?.cancel() }
}
// snippet: end

// snippet: sessions-follow
/// Follows the session until the returned task is cancelled.
func followSession(of client: NativeAuthClient) -> Task<Void, Never> {
    let events = client.sessionEvents()
    return Task {
        for await event in events {
            switch event {
            case .signedIn(let account):
                print("Signed in as \(account.username)")
            case .tokenRefreshed(_, let scopes, let expiresOn):
                print("New access token for \(scopes), valid until \(expiresOn)")
            case .signedOut(_, .requested):
                print("Signed out")
            case .signedOut(let account, .sessionExpired):
                print("The session of \(account.username) ended; please sign in again")
            @unknown default:
                break
            }
        }
    }
}
// snippet: end

// snippet: sessions-send-orders
func orders(account: UserAccountResult, url: URL) async -> String {
    do {
        let response = try await account.send(
            HTTPRequest(method: "GET", url: url, headers: ["Accept": "application/json"]),
            scopes: ["api://contoso/orders.read"])
        guard response.statusCode == 200 else { return "The API answered \(response.statusCode)." }
        return String(decoding: response.body, as: UTF8.self)
    } catch {
        // error is an AuthorizedRequestError: send is the only call here that throws.
        if error.isRefreshTokenExpired || error.isNoAccount { return "Please sign in again." }
        if error.isNetworkError { return "No connection. Try again." }
        return "The request failed (reference \(error.correlationId))."
    }
}
// snippet: end

/// The guide's `fetchOrders`, in a namespace of its own: the Tokens guide has one of the same name.
struct SessionsAuthorizeSample {
    // snippet: sessions-authorize-fetch
    // import Foundation
    // #if canImport(FoundationNetworking)
    // import FoundationNetworking
    // #endif
    // import NativeAuth

    func fetchOrders(account: UserAccountResult, url: URL) async throws -> Data {
        let request = try await account.authorize(URLRequest(url: url), scopes: ["api://contoso/orders.read"])
        let (data, _) = try await URLSession.shared.data(for: request)
        return data
    }
    // snippet: end
}

/// A client on an emulated tenant, with ada@example.com signed in.
private func signedInAccount() async throws -> (
    client: NativeAuthClient, tenant: EmulatedTenant, account: UserAccountResult
) {
    let (client, tenant, _) = try makeClient()
    let start = try await client.signIn(
        SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
    guard case .completed(let account) = start else {
        throw UnexpectedSampleOutcome(description: "\(start)")
    }
    return (client, tenant, account)
}

@Suite(.hangLimit)
struct SessionsGuideSampleTests {
    // The formatter leaves this alone: the sample keeps its line breaks.
    // swift-format-ignore
    // snippet: sessions-tests
    @Test func staysSignedInAcrossARestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }

        let tenant = EmulatedTenant(random: SeededRandomSource(seed: 1))
        tenant.addUser(EmulatedUser(username: "ada@example.com", password: "Analytical-Engine-1843"))
        let configuration = try NativeAuthConfiguration(clientId: tenant.clientId, authority: tenant.authority)
        let first = NativeAuthClient(
            configuration: configuration, transport: tenant, credentialStore: FileCredentialStore(directory: directory))
        let start = try await first.signIn(
            SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        guard case .completed = start else {
            throw UnexpectedOutcome(description: "\(start)")
        }

        // The next launch: a new tenant with the old one's users and refresh tokens, and a new client
        // on the same directory.
        let restarted = EmulatedTenant(random: SeededRandomSource(seed: 2))
        try restarted.restore(from: tenant.snapshot())
        let second = NativeAuthClient(
            configuration: configuration, transport: restarted, credentialStore: FileCredentialStore(directory: directory))

        let account = try #require(try await second.currentAccount())
        _ = try await account.getAccessToken()
        #expect(restarted.receivedRequests.isEmpty)  // restored and served from the cache

        _ = try await account.getAccessToken(forceRefresh: true)  // the restored refresh token works
        #expect(restarted.receivedRequests.count == 1)
    }

    @Test func publishesSessionEvents() async throws {
        let (client, tenant, _) = try makeClient()
        var events = client.sessionEvents().makeAsyncIterator()

        let start = try await client.signIn(
            SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        guard case .completed(let account) = start else {
            throw UnexpectedOutcome(description: "\(start)")
        }
        #expect(await events.next() == .signedIn(account.account))

        tenant.revokeRefreshTokens(for: "ada@example.com")
        _ = try? await account.getAccessToken(forceRefresh: true)
        #expect(await events.next() == .signedOut(account.account, reason: .sessionExpired))
    }

    @Test func tokenLifetimesIgnoreTheServersClock() async throws {
        let (client, tenant, clock) = try makeClient()
        tenant.configure { $0.serverClockOffset = 600 }  // the server's clock is ten minutes ahead

        let start = try await client.signIn(
            SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        guard case .completed(let account) = start else {
            throw UnexpectedOutcome(description: "\(start)")
        }
        let token = try await account.getAccessToken()
        #expect(token.expiresOn == clock.now().addingTimeInterval(3600))
    }
    // snippet: end
}

@Suite(.hangLimit)
struct SessionsSnippetTests {
    @Test func choosesTheLaunchScreen() async throws {
        let (client, _, _) = try makeClient()
        guard case .signIn = await launchScreen(client: client) else {
            throw UnexpectedSampleOutcome(description: "not the sign-in screen")
        }
        _ = try await client.signIn(SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        guard case .home(let account) = await launchScreen(client: client) else {
            throw UnexpectedSampleOutcome(description: "not the home screen")
        }
        #expect(account.account.username == "ada@example.com")
    }

    @Test func signsOut() async throws {
        let (client, _, account) = try await signedInAccount()
        // snippet: sessions-sign-out
        let result = await account.signOut()
        // snippet: end
        #expect(result.removedFromStore)
        #expect(try await client.currentAccount() == nil)
    }

    @Test func signsOutForGood() async throws {
        let (client, _, account) = try await signedInAccount()
        #expect(await signOutForGood(account))
        #expect(try await client.currentAccount() == nil)
    }

    @Test func followsTheSession() async throws {
        let (client, tenant, _) = try makeClient()
        let console = Console()
        let following = Console.$current.withValue(console) { followSession(of: client) }
        defer { following.cancel() }

        let start = try await client.signIn(
            SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        guard case .completed(let account) = start else {
            throw UnexpectedSampleOutcome(description: "\(start)")
        }
        _ = try await account.getAccessToken(forceRefresh: true)
        tenant.revokeRefreshTokens(for: "ada@example.com")
        _ = try? await account.getAccessToken(forceRefresh: true)

        try await requireUntil("the events") { console.printed("ended; please sign in again") }
        #expect(console.printed("Signed in as ada@example.com"))
        #expect(console.printed("New access token for"))
    }

    @MainActor
    @Test func theSessionModelGreetsTheRestoredAccount() async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
        let (client, _, _) = try makeClient()
        #expect(await greeting(client: client) == "Please sign in")
        _ = try await client.signIn(SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        #expect(await greeting(client: client) == "Welcome back, ada@example.com")
    }

    @MainActor
    @Test func theRootScreenFollowsTheSessionsChanges() async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
        let (client, _, _) = try makeClient()
        let (shown, showing) = AsyncStream.makeStream(of: String.self)
        let root = RootScreen { account in showing.yield(account?.account.username ?? "sign-in") }
        let session = AuthSession(client: client)
        root.follow(session)
        var screens = shown.makeAsyncIterator()
        #expect(await screens.next(isolation: #isolation) == "sign-in")
        _ = try await client.signIn(SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        #expect(await screens.next(isolation: #isolation) == "ada@example.com")
        await session.signOut()
        #expect(await screens.next(isolation: #isolation) == "sign-in")
        root.stop()
    }

    @Test func authorizesAURLRequest() async throws {
        let (_, tenant, account) = try await signedInAccount()
        let server = try EmulatorServer(tenant: tenant)
        server.start()
        let data = try await SessionsAuthorizeSample().fetchOrders(account: account, url: server.url(for: .resource))
        await server.stop()
        #expect(String(decoding: data, as: UTF8.self).contains("ada@example.com"))
    }

    @Test func sendsARequestAndExplainsFailures() async throws {
        let (_, tenant, account) = try await signedInAccount()
        let body: String = await orders(account: account, url: tenant.url(for: .resource))
        #expect(body.contains("ada@example.com"))

        tenant.force(.networkFailure, on: .resource)
        let failure: String = await orders(account: account, url: tenant.url(for: .resource))
        #expect(failure == "No connection. Try again.")
    }
}
