import AuthCrypto

/// Where the web client gets its randomness: PKCE verifiers, `state` and `nonce`.
///
/// An injected object rather than an `inout` generator: a client keeps one for its lifetime, and
/// callers never hand the zero-size `SystemRandomNumberGenerator` across an `await` (which
/// ThreadSanitizer builds of this toolchain crash on).
protocol WebRandomSource: Sendable {
    /// Returns the next 64 random bits.
    func next() -> UInt64
}

/// Random bits from the system's cryptographically secure generator (`SystemRandomNumberGenerator`:
/// `getrandom` on Linux, `arc4random_buf` on Apple platforms).
struct SystemWebRandomSource: WebRandomSource {
    func next() -> UInt64 {
        var generator = SecureRandomGenerator()
        return generator.next()
    }
}

/// A ``WebRandomSource`` seen as a `RandomNumberGenerator`, for the standard library's unbiased
/// helpers such as `next(upperBound:)`.
struct WebRandomGenerator: RandomNumberGenerator {
    let source: any WebRandomSource

    mutating func next() -> UInt64 { source.next() }
}
