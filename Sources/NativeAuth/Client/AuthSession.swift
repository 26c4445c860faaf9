import AuthSupport
import Foundation
public import Observation

/// The signed-in session as an observable model, for SwiftUI and any other observer.
///
/// Hold one for the app's lifetime (as `@State` of the root view, or in the app's environment). It
/// restores the stored account at launch, with no network request, and then follows the client:
/// a sign-in (by any flow, native or in the browser), each token refresh, a sign-out (by the app
/// or because the session ended on the server). Views read ``account``, ``isRestoring`` and
/// ``lastEvent``; every change is published through Observation (`@Observable`), on the main actor.
///
/// ```swift
/// @State private var session = AuthSession(client: client)
///
/// var body: some View {
///     if session.isRestoring { ProgressView() }
///     else if let account = session.account { HomeView(account: account) }
///     else { SignInView(client: client) }
/// }
/// ```
///
/// A sign-in screen needs to tell the session nothing: the flow's completion is a session event,
/// and ``account`` follows it. Works the same for a ``NativeAuthClient`` and a ``WebAuthClient``.
/// Observation needs macOS 14, iOS 17, tvOS 17 or watchOS 10 on Apple platforms.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
@Observable
public final class AuthSession {
    /// The signed-in account; `nil` while restoring and when nobody is signed in.
    public private(set) var account: UserAccountResult?
    /// `true` until the stored account has been read at launch.
    public private(set) var isRestoring = true
    /// The last session event: a sign-in, a refresh or a sign-out (and why).
    public private(set) var lastEvent: SessionEvent?
    /// Why the stored account could not be read, when it could not (a locked keychain, an
    /// unreadable store); that is not a sign-out. ``restore()`` tries again.
    public private(set) var storeError: CredentialStoreError?

    /// Whether an account is signed in.
    public var isSignedIn: Bool { account != nil }

    @ObservationIgnored private let readAccount: @Sendable () async throws(CredentialStoreError) -> UserAccountResult?
    /// Follows the client's session events; cancelled when the session goes away.
    @ObservationIgnored private let listener = Listener()
    /// The streams of ``changes()``; finished when the session goes away.
    @ObservationIgnored private let watchers = Watchers()

    /// A session model following `client`.
    public convenience init(client: NativeAuthClient) {
        self.init(events: client.sessionEvents()) { () async throws(CredentialStoreError) in
            try await client.currentAccount()
        }
    }

    /// A session model following a web sign-in `client`.
    public convenience init(client: WebAuthClient) {
        self.init(events: client.sessionEvents()) { () async throws(CredentialStoreError) in
            try await client.currentAccount()
        }
    }

    private init(
        events: AsyncStream<SessionEvent>,
        readAccount: @escaping @Sendable () async throws(CredentialStoreError) -> UserAccountResult?
    ) {
        self.readAccount = readAccount
        // The stream is opened before the account is read, so no event between the two is missed.
        listener.start { [weak self] in
            await self?.restore()
            for await event in events {
                guard let self else { return }
                await self.apply(event)
            }
        }
    }

    /// Reads the stored account again (at launch this happens by itself): after a ``storeError``,
    /// for example once the device is unlocked. Sends no request.
    public func restore() async {
        await reload()
        publish()
    }

    /// Reads the stored account into ``account``; nothing unless `wanted` (the callee decides:
    /// an await under a condition has the compiler copy what follows it).
    private func reload(_ wanted: Bool = true) async {
        guard wanted else { return }
        do {
            let restored = try await readAccount()
            account = restored
            storeError = nil
        } catch {
            storeError = error
        }
        isRestoring = false
    }

    /// A valid access token of the signed-in account, from the cache or by a refresh.
    ///
    /// - Throws: ``RetrieveAccessTokenError``; ``RetrieveAccessTokenError/isNoAccount`` when
    ///   nobody is signed in.
    public func accessToken(scopes: [String] = [], forceRefresh: Bool = false) async throws(RetrieveAccessTokenError)
        -> TokenResult
    {
        guard let account else { throw RetrieveAccessTokenError(.noAccount, correlationId: UUID()) }
        return try await account.getAccessToken(scopes: scopes, forceRefresh: forceRefresh)
    }

    /// Signs the account out; ``account`` becomes `nil` at once. `nil` when nobody was signed in.
    @discardableResult
    public func signOut() async -> SignOutResult? {
        guard let account else { return nil }
        let result = await account.signOut()
        if self.account?.account == account.account { self.account = nil }
        publish()
        return result
    }

    private func apply(_ event: SessionEvent) async {
        lastEvent = event
        if case .signedOut(let signedOut, _) = event, account?.account == signedOut { account = nil }
        // After a sign-in: the account as the client now holds it (from memory: no request).
        var signedIn = false
        if case .signedIn = event { signedIn = true }
        await reload(signedIn)
        publish()
    }

    /// The session's state at one moment, as ``changes()`` reports it.
    public struct Snapshot: Sendable {
        /// ``AuthSession/account`` at that moment.
        public let account: UserAccountResult?
        /// ``AuthSession/isRestoring`` at that moment.
        public let isRestoring: Bool
        /// ``AuthSession/lastEvent`` at that moment.
        public let lastEvent: SessionEvent?
        /// ``AuthSession/storeError`` at that moment.
        public let storeError: CredentialStoreError?

        /// Whether an account was signed in.
        public var isSignedIn: Bool { account != nil }
    }

    /// The session's state now.
    public var snapshot: Snapshot {
        Snapshot(account: account, isRestoring: isRestoring, lastEvent: lastEvent, storeError: storeError)
    }

    /// The session's state now, then again after each change (a restore, a sign-in, a refresh,
    /// a sign-out), for code that does not use SwiftUI or Observation: a UIKit controller, a
    /// command-line tool.
    ///
    /// ```swift
    /// for await state in session.changes() {
    ///     show(state.account)  // nil: the sign-in screen
    /// }
    /// ```
    ///
    /// A reader that falls behind gets the newest state (the client's `sessionEvents()` gives
    /// every event). The sequence ends when the task reading it is cancelled, or when the session
    /// goes away; until then it does not end, so read it in a task the app cancels (a view
    /// controller's, say).
    public func changes() -> AsyncStream<Snapshot> {
        let (stream, continuation) = AsyncStream.makeStream(of: Snapshot.self, bufferingPolicy: .bufferingNewest(1))
        continuation.yield(snapshot)
        watchers.add(continuation)
        return stream
    }

    /// Sends the state to every reader of ``changes()``.
    private func publish() {
        watchers.send(snapshot)
    }

    /// Owns the task that follows the events, and cancels it when the session goes away.
    private final class Listener: Sendable {
        private let task = Locked<Task<Void, Never>?>(nil)

        func start(_ body: @escaping @MainActor @Sendable () async -> Void) {
            task.withLock { $0 = Task { @MainActor in await body() } }
        }

        deinit { task.current?.cancel() }
    }

    /// The continuations of ``changes()``: each removed when its reader stops, all finished when
    /// the session goes away. A short list rather than a dictionary: a session has few readers.
    private final class Watchers: Sendable {
        private let continuations = Locked<[(id: Int, continuation: AsyncStream<Snapshot>.Continuation)]>([])
        private let next = Locked(0)

        func add(_ continuation: AsyncStream<Snapshot>.Continuation) {
            let id = next.withLock { value -> Int in
                defer { value += 1 }
                return value
            }
            continuations.withLock { $0.append((id, continuation)) }
            continuation.onTermination = { [weak self] _ in
                self?.continuations.withLock { $0.removeAll { $0.id == id } }
            }
        }

        func send(_ snapshot: Snapshot) {
            for entry in continuations.current { entry.continuation.yield(snapshot) }
        }

        deinit { continuations.current.forEach { $0.continuation.finish() } }
    }
}
