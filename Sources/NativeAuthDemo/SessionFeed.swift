import Foundation
import NativeAuth

/// Collects the session events of the demo's client as they happen, so the menu can show them.
/// When the demo moves to another client (the emulated tenant served over HTTP for a browser
/// sign-in), the feed follows that one too.
final class SessionFeed: Sendable {
    /// Guarded by `lock`; the feed's tasks append, the menu drains.
    private let lock = NSLock()
    nonisolated(unsafe) private var pending: [SessionEvent] = []
    nonisolated(unsafe) private var tasks: [Task<Void, Never>] = []

    init(client: NativeAuthClient) {
        follow(client)
    }

    deinit { lock.withLock { tasks.forEach { $0.cancel() } } }

    /// Collects the events of `client` too.
    func follow(_ client: NativeAuthClient) {
        let events = client.sessionEvents()
        let box = Box()
        box.feed = self
        let task = Task {
            for await event in events { box.feed?.append(event) }
        }
        lock.withLock { tasks.append(task) }
    }

    private func append(_ event: SessionEvent) {
        lock.withLock { pending.append(event) }
    }

    /// The events since the last call, oldest first.
    func drain() async -> [SessionEvent] {
        // Let events from the action that just ended reach the feed.
        for _ in 0..<20 { await Task.yield() }
        return lock.withLock {
            defer { pending = [] }
            return pending
        }
    }

    /// Lets the feed's task reach the feed without keeping it alive.
    private final class Box: @unchecked Sendable {
        // Written once, before the task that reads it starts.
        weak var feed: SessionFeed?
    }
}

extension DemoApp {
    /// Says who is signed in when the demo starts: a restored account needs no network request.
    func greet() async {
        do {
            guard let account = try await client.currentAccount() else { return }
            let name = account.account.claims.name.map { " (\($0))" } ?? ""
            Terminal.say("")
            Terminal.say("👋 Welcome back, \(account.account.username)\(name): restored from the credential store.")
            if let token = try? await account.getAccessToken() {
                Terminal.say(
                    "   Its access token is cached until \(Self.format(token.expiresOn)); a refresh follows after that."
                )
            }
        } catch {
            Terminal.say("❌ The credential store could not be read: \(error.errorDescription ?? "unknown error").")
        }
    }

    /// One line per session event since the last menu.
    func showSessionEvents() async {
        for event in await feed.drain() {
            switch event {
            case .signedIn(let account):
                Terminal.say("🔔 Session: \(account.username) signed in; credentials stored.")
            case .tokenRefreshed(let account, _, let expiresOn):
                Terminal.say(
                    "🔔 Session: a new access token for \(account.username), valid until \(Self.format(expiresOn)).")
            case .signedOut(let account, .requested):
                Terminal.say("🔔 Session: \(account.username) signed out; credentials removed.")
            case .signedOut(let account, .sessionExpired):
                Terminal.say("🔔 Session: \(account.username)'s session ended on the server; sign in again.")
            @unknown default:
                Terminal.say("🔔 Session: \(event)")
            }
        }
    }
}
