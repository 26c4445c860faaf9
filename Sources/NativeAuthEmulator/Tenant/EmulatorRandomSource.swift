import AuthCrypto
import AuthSupport

/// Where an ``EmulatedTenant`` gets its randomness: one-time codes, continuation tokens, token ids
/// and trace ids.
///
/// Inject a ``SeededRandomSource`` to make every code and token reproducible from run to run; the
/// default ``SystemRandomSource`` is unpredictable.
public protocol EmulatorRandomSource: Sendable {
    /// Returns the next 64 random bits.
    func next() -> UInt64
}

/// Random bits from the system's cryptographically secure generator.
public struct SystemRandomSource: EmulatorRandomSource {
    /// Creates the system random source.
    public init() {}

    /// Returns 64 bits from the system generator (`SystemRandomNumberGenerator`).
    public func next() -> UInt64 {
        var generator = SecureRandomGenerator()
        return generator.next()
    }
}

/// A deterministic random source (SplitMix64): the same seed gives the same sequence, so codes
/// and tokens are the same in every run of a test.
///
/// Safe to share between tasks: the state sits behind a lock.
public final class SeededRandomSource: EmulatorRandomSource, Sendable {
    private let state: Locked<UInt64>

    /// Creates a source whose sequence is fixed by `seed`.
    public init(seed: UInt64) {
        state = Locked(seed)
    }

    /// Returns the next value of the sequence.
    public func next() -> UInt64 {
        state.withLock { state in
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
    }
}
