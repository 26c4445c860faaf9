import AuthSupport
public import Foundation

/// How much the SDK tells a ``NativeAuthLogger``.
public enum LogLevel: Int, Sendable, Comparable, CustomStringConvertible {
    /// Step by step detail of every request and answer (never secrets).
    case trace = 0
    /// Each request and its outcome.
    case debug
    /// Flow milestones: signed in, token refreshed, signed out.
    case info
    /// Something went wrong that the SDK recovered from.
    case warning
    /// An operation failed.
    case error

    /// `<` by verbosity: `trace` is the lowest level.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The level's name.
    public var description: String {
        switch self {
        case .trace: "trace"
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }
}

/// One log record: a constant message plus metadata that never holds a secret.
public struct LogRecord: Sendable, CustomStringConvertible {
    /// The record's level.
    public let level: LogLevel
    /// A constant message such as `"request sent"`.
    public let message: String
    /// Non-secret details: endpoint, status code, error codes, counts.
    public let metadata: [String: String]
    /// The flow's correlation id (the `client-request-id` header), when the record belongs to a flow.
    public let correlationId: UUID?

    /// Creates a record.
    public init(level: LogLevel, message: String, metadata: [String: String] = [:], correlationId: UUID? = nil) {
        self.level = level
        self.message = message
        self.metadata = metadata
        self.correlationId = correlationId
    }

    /// The record on one line: level, message, correlation id and sorted metadata.
    public var description: String {
        var parts = ["[\(level)] \(message)"]
        if let correlationId { parts.append("correlation-id=\(correlationId.uuidString)") }
        parts += metadata.sortedKeys.map { "\($0)=\(metadata[$0, default: ""])" }
        return parts.joined(separator: " ")
    }
}

/// Receives the SDK's log records. Nothing is logged unless an app passes a logger.
///
/// Records never carry passwords, codes, tokens or continuation tokens, at any level.
public protocol NativeAuthLogger: Sendable {
    /// The lowest level the logger wants; records below it are not built.
    var minimumLevel: LogLevel { get }
    /// Receives one record. Called from any task; must not block.
    func log(_ record: LogRecord)
}

/// A logger that keeps every record in memory, for tests and diagnostics screens.
public final class InMemoryLogger: NativeAuthLogger, Sendable {
    /// The lowest level kept.
    public let minimumLevel: LogLevel
    private let storage = Locked<[LogRecord]>([])

    /// Creates a logger that keeps records at `minimumLevel` and above.
    public init(minimumLevel: LogLevel = .trace) { self.minimumLevel = minimumLevel }

    /// Keeps `record`.
    public func log(_ record: LogRecord) { storage.withLock { $0.append(record) } }

    /// Every record kept so far, oldest first.
    public var records: [LogRecord] { storage.current }
}

/// The SDK's side of logging: builds records only when a logger wants them.
struct Log: Sendable {
    let logger: (any NativeAuthLogger)?

    /// Logs one record, built only if the logger wants its level. Inlined, so that each log
    /// line is two calls and the metadata it builds in place: a called function taking the
    /// metadata closure was compiled once for each line that logs, with that line's closure in it.
    @inline(__always)
    func callAsFunction(
        _ level: LogLevel, _ message: String, _ metadata: @autoclosure () -> [String: String] = [:],
        correlationId: UUID? = nil
    ) {
        if wants(level) { emit(level, message, metadata(), correlationId) }
    }

    /// Whether the logger, if any, wants records of `level`.
    @inline(never)
    private func wants(_ level: LogLevel) -> Bool {
        guard let logger else { return false }
        return level >= logger.minimumLevel
    }

    /// Hands the record to the logger.
    @inline(never)
    private func emit(_ level: LogLevel, _ message: String, _ metadata: [String: String], _ correlationId: UUID?) {
        logger?.log(LogRecord(level: level, message: message, metadata: metadata, correlationId: correlationId))
    }
}
