#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a loopback listener could not start or stopped without an outcome.
package enum LoopbackHTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another socket holds the port (`EADDRINUSE`).
    case portInUse(UInt16)
    /// A socket call failed: the call's name and `errno`.
    case system(call: String, code: Int32)
    /// The deadline passed before the handler finished.
    case timedOut
    /// `stop()` was called (for example when the waiting task was cancelled).
    case stopped
    /// The listener was already serving or already closed.
    case notListening

    package var description: String {
        switch self {
        case .portInUse(let port): "port \(port) is already in use"
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        case .timedOut: "timed out"
        case .stopped: "stopped"
        case .notListening: "the listener is not listening"
        }
    }
}
