import Foundation

/// Where the default keychain store keeps its items on macOS when the data protection keychain
/// refuses the process: an unsigned command-line tool (or one run with `swift run`) has no
/// keychain entitlement, and every call to the data protection keychain answers
/// `errSecMissingEntitlement` (-34018). The store then keeps its items in the file-based (login)
/// keychain, which needs no entitlement, rather than failing every sign-in. A store given an
/// access group does not fall back: its group is only in the data protection keychain.
enum KeychainFallback {
    /// `errSecMissingEntitlement`.
    static let missingEntitlement: Int32 = -34018

    /// Runs `body` on the data protection keychain (`true`) and, when `allowed` and that refuses
    /// the process for want of an entitlement, once more on the file-based keychain (`false`).
    static func run<Value>(
        allowed: Bool, status: (any Error) -> Int32?, _ body: (_ dataProtection: Bool) throws -> Value
    ) throws -> Value {
        do {
            return try body(true)
        } catch  where allowed && status(error) == missingEntitlement {
            return try body(false)
        }
    }

    /// Whether the platform has the two keychains (macOS); elsewhere there is only the data
    /// protection keychain, and nothing to fall back to.
    static var hasFileBasedKeychain: Bool {
        #if os(macOS)
            true
        #else
            false
        #endif
    }
}
