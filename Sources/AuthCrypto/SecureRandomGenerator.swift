/// The system's cryptographically secure generator (`SystemRandomNumberGenerator`: `getrandom` on
/// Linux, `arc4random_buf` on Apple platforms) in a value with storage of its own.
///
/// The standard generator has no stored properties, so a local one has no address of its own:
/// every `inout` use of one, on any thread, is instrumented at the same placeholder address, and
/// ThreadSanitizer reports two threads signing at once as a race on it. This value's count of
/// draws gives it a size, so each caller's generator lives in its own frame. The words it returns
/// are the system generator's, unchanged.
package struct SecureRandomGenerator: RandomNumberGenerator {
    private var system = SystemRandomNumberGenerator()
    /// How many words were drawn; kept only so that the value has storage.
    private var draws: UInt64 = 0

    package init() {}

    package mutating func next() -> UInt64 {
        draws &+= 1
        return system.next()
    }
}
