public import Foundation

/// Why ``EmulatedTenant/restore(from:)`` refused a snapshot. The tenant is left unchanged.
public struct EmulatorSnapshotError: Error, Sendable, Equatable, LocalizedError, CustomStringConvertible {
    /// The kind of problem.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// The data is not a tenant snapshot: not JSON, not an object, no `format`, or a field
        /// missing or of the wrong type.
        case malformed
        /// The snapshot has a `format` newer than this emulator reads.
        case newerFormat
        /// The snapshot was taken of a tenant with another subdomain or client id.
        case otherTenant
    }

    /// The kind of problem.
    public let kind: Kind
    /// What is wrong, in one sentence, such as
    /// `users[1].mfaMethods[0].channel is missing or not a string.`
    public let reason: String

    init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    /// The ``reason``.
    public var description: String { reason }

    /// The ``reason``.
    public var errorDescription: String? { reason }
}
