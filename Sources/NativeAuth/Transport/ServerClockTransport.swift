import Foundation

/// A transport in front of a server that keeps time on a clock of its own, such as an in-process
/// emulated tenant (`EmulatedTenant`), whose clock a test or a demo may have set anywhere.
///
/// A ``WebAuthClient`` (and the browser sign-in of a ``NativeAuthClient``) left on the system
/// clock reads the time from ``serverClock`` instead, so that its time checks (an ID token's `iat`,
/// `exp` and `nbf`, a DPoP proof's `iat`, a cached token's expiry) agree with the server's; its
/// waits (a device sign-in's polling) still pass in real time. A clock the app sets in the
/// configuration is used as it is.
public protocol ServerClockTransport: HTTPTransport {
    /// The clock the server's answers follow.
    var serverClock: any NativeAuthClock { get }
}

/// The server's time, with the system clock's waits.
struct ServerTimeClock: NativeAuthClock {
    let server: any NativeAuthClock

    func now() -> Date { server.now() }

    func sleep(seconds: Double) async throws { try await SystemClock().sleep(seconds: seconds) }

    /// The clock a web client of `transport` runs on: `configured`, unless that is the system
    /// clock and `transport` keeps its server's time.
    static func resolve(_ configured: any NativeAuthClock, transport: any HTTPTransport) -> any NativeAuthClock {
        guard configured is SystemClock, let clocked = transport as? any ServerClockTransport else { return configured }
        return ServerTimeClock(server: clocked.serverClock)
    }
}
