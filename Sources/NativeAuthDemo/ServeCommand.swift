import Dispatch
import Foundation
import NativeAuth
import NativeAuthEmulator

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `nativeauth serve`: an emulated tenant over HTTP on 127.0.0.1 until SIGINT or SIGTERM.
enum ServeCommand {
    /// Serves until interrupted; returns the exit status.
    static func run(_ options: Options.ServeOptions) async -> Int32 {
        let clock: any NativeAuthClock = options.manualClock ? ManualClock(now: Date()) : SystemClock()
        let tenant = EmulatedTenant(tenantSubdomain: options.tenant, clientId: options.clientId, clock: clock)
        tenant.configure { $0.requiredSignUpAttributes = EmulatorSetup.signUpAttributes }
        for entry in EmulatorSetup.users { tenant.addUser(entry.user) }
        if let seed = options.seed {
            do {
                try tenant.restore(from: Data(contentsOf: seed))
            } catch let error as EmulatorSnapshotError {
                Terminal.sayError("nativeauth serve: \(seed.path) is not a snapshot of this tenant: \(error.reason)")
                return 1
            } catch {
                Terminal.sayError("nativeauth serve: \(seed.path) could not be read.")
                return 1
            }
        }
        if !options.settings.isEmpty {
            var settings = tenant.settings
            do {
                try settings.apply(json: "{" + options.settings.joined(separator: ",") + "}")
            } catch {
                Terminal.sayError("nativeauth serve: \(error.message)")
                return 1
            }
            tenant.settings = settings
        }

        var configuration = EmulatorServer.Configuration()
        configuration.port = options.port ?? 0
        configuration.latency = .milliseconds(options.latencyMilliseconds)
        let server: EmulatorServer
        do {
            server = try EmulatorServer(tenant: tenant, configuration: configuration)
        } catch {
            Terminal.sayError("nativeauth serve: \(error.reason)")
            return 1
        }
        let stopRequest = SignalWaiter(signals: [SIGINT, SIGTERM])
        server.start()
        Terminal.say(banner(server: server, options: options))

        let printer = OutboxPrinter()
        let outboxWatcher = Task {
            while !Task.isCancelled {
                await printer.showNew(in: tenant.outbox)
                // Nobody reads them here: keep a long run's memory bounded.
                if tenant.receivedRequests.count > 10_000 { tenant.clearReceivedRequests() }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        let serving = Task {
            let failure = await server.waitUntilStopped()
            stopRequest.finish()  // serving failed on its own: stop waiting for a signal
            return failure
        }
        let signal = await stopRequest.wait()
        outboxWatcher.cancel()
        if let signal {
            Terminal.say("\nReceived \(signal == SIGINT ? "SIGINT" : "SIGTERM"); stopping…")
        }
        await server.stop()
        await printer.showNew(in: tenant.outbox)
        if let failure = await serving.value {
            Terminal.sayError("nativeauth serve: \(failure.reason)")
            return 1
        }
        Terminal.say("Stopped.")
        return 0
    }

    static func banner(server: EmulatorServer, options: Options.ServeOptions) -> String {
        var lines = [
            "Emulated tenant serving on \(server.baseURL.absoluteString) (127.0.0.1 only)",
            "  authority:   \(server.authority.absoluteString)",
            "  client id:   \(server.tenant.clientId)",
            "  control API: \(server.controlURL.absoluteString)",
            "  discovery:   \(server.authority.absoluteString)/v2.0/.well-known/openid-configuration",
            "  issuer:      \(server.tenant.issuerIdentifier) (the iss of ID tokens)",
        ]
        if options.manualClock { lines.append("  clock:       manual (POST \(server.controlURL.path)/clock/advance)") }
        if !options.settings.isEmpty {
            lines.append(
                "  settings:    {\(options.settings.joined(separator: ","))} (GET \(server.controlURL.path)/settings)")
        }
        if options.latencyMilliseconds > 0 {
            lines.append("  latency:     \(options.latencyMilliseconds) ms per answer")
        }
        if let seed = options.seed {
            lines.append("Users and sessions from \(seed.path): \(server.tenant.users.count) users.")
        } else {
            lines.append("Demo users:")
            let width = EmulatorSetup.users.map(\.user.username.count).max() ?? 0
            for entry in EmulatorSetup.users {
                lines.append("   \(entry.user.username.paddedTo(width))   \(entry.summary)")
            }
        }
        lines += [
            "Sign-up asks for \(EmulatorSetup.signUpAttributeList).",
            "Codes the tenant sends are shown here, and at GET \(server.controlURL.path)/codes/{address}.",
            "Every endpoint, the control API and these users: Docs/EmulatorServer.md.",
            "Press Ctrl-C to stop.",
        ]
        return lines.joined(separator: "\n")
    }
}

/// Waits for the first of some signals, handled with dispatch sources (the signals' default
/// actions are turned off, so the process is not killed).
final class SignalWaiter: Sendable {
    private let state = DemoLocked(State())
    /// Kept only to keep the sources alive; never touched after `init`, so sharing is safe.
    nonisolated(unsafe) private let sources: [any DispatchSourceSignal]

    private struct State {
        var received: Int32?
        var finished = false
        var waiter: CheckedContinuation<Int32?, Never>?
    }

    init(signals: [Int32]) {
        let queue = DispatchQueue(label: "nativeauth.signals")
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            sources.append(source)
        }
        self.sources = sources
        for (source, number) in zip(sources, signals) {
            source.setEventHandler { [state] in
                let waiter = state.withLock { state -> CheckedContinuation<Int32?, Never>? in
                    guard state.received == nil, !state.finished else { return nil }
                    state.received = number
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume(returning: number)
            }
            source.resume()
        }
    }

    /// The number of the first signal received, once one is; `nil` after ``finish()``.
    func wait() async -> Int32? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                guard state.received == nil, !state.finished else { return true }
                state.waiter = continuation
                return false
            }
            if ready { continuation.resume(returning: state.withLock { $0.received }) }
        }
    }

    /// Ends ``wait()`` without a signal.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Int32?, Never>? in
            guard state.received == nil, !state.finished else { return nil }
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }
}

/// A value behind a lock, for the demo's little shared state.
final class DemoLocked<Value: Sendable>: @unchecked Sendable {
    // Safe: `value` is only touched inside `withLock`, while `lock` is held.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
