#if canImport(Security)
    import AuthSupport
    import Dispatch
    public import Foundation
    import Security

    /// A credential store in the keychain: the default store on Apple platforms.
    ///
    /// Each key is one generic password item (`kSecClassGenericPassword`) with the store's service as
    /// `kSecAttrService` and the key as `kSecAttrAccount`, in the data protection keychain (on macOS
    /// too, through `kSecUseDataProtectionKeychain`). Items are not synchronised through iCloud.
    ///
    /// On macOS, a process the data protection keychain refuses for want of an entitlement (an
    /// unsigned command-line tool: `errSecMissingEntitlement`) has its items kept in the
    /// file-based login keychain instead, unless the store was given an ``accessGroup``.
    ///
    /// A keychain that cannot be read, such as a device still locked after a restart, throws a
    /// ``KeychainError``: it never reads as "nothing stored", so the SDK never mistakes it for a
    /// sign-out. Keychain calls run on a background dispatch queue, not on the Swift concurrency
    /// thread pool.
    public struct KeychainCredentialStore: CredentialStore {
        /// When the items can be read, as a `kSecAttrAccessible` value.
        public struct Accessibility: Sendable, Hashable {
            let rawValue: String

            /// After the first unlock following a restart, until the next restart; never restored to
            /// another device. The default: background refreshes keep working while the device is locked.
            public static let afterFirstUnlockThisDeviceOnly = Accessibility(
                rawValue: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String)
            /// After the first unlock following a restart; may be restored to another device from an
            /// encrypted backup.
            public static let afterFirstUnlock = Accessibility(rawValue: kSecAttrAccessibleAfterFirstUnlock as String)
            /// Only while the device is unlocked; never restored to another device.
            public static let whenUnlockedThisDeviceOnly = Accessibility(
                rawValue: kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String)
            /// Only while the device is unlocked; may be restored to another device from an encrypted backup.
            public static let whenUnlocked = Accessibility(rawValue: kSecAttrAccessibleWhenUnlocked as String)
            /// Only while the device is unlocked and has a passcode; deleted if the passcode is removed.
            public static let whenPasscodeSetThisDeviceOnly = Accessibility(
                rawValue: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly as String)
        }

        /// The `kSecAttrService` of every item.
        public let service: String
        /// The `kSecAttrAccessGroup` of every item, or `nil` for the app's default group.
        public let accessGroup: String?
        /// When the items written by this store can be read.
        public let accessibility: Accessibility

        /// Creates a store over the keychain items of `service`.
        ///
        /// - Parameters:
        ///   - service: the `kSecAttrService` that groups the SDK's items.
        ///   - accessGroup: a keychain access group to share the items with app extensions or other
        ///     apps of the same team; `nil` for the app's default group.
        ///   - accessibility: when items written by this store can be read.
        public init(
            service: String = "swift-native-auth", accessGroup: String? = nil,
            accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly
        ) {
            self.service = service
            self.accessGroup = accessGroup
            self.accessibility = accessibility
        }

        /// The data stored under `key`, or `nil` when the keychain has no item for it.
        ///
        /// - Throws: ``KeychainError`` for any other outcome, including a locked device
        ///   (``KeychainError/isInteractionNotAllowed``).
        public func data(forKey key: String) async throws -> Data? {
            try await onKeychainQueue { dataProtection in
                var query = self.query(forKey: key, dataProtection: dataProtection)
                query[kSecReturnData as String] = true
                query[kSecMatchLimit as String] = kSecMatchLimitOne
                var result: CFTypeRef?
                let status = SecItemCopyMatching(query as CFDictionary, &result)
                switch status {
                case errSecSuccess:
                    guard let data = result as? Data else {
                        throw KeychainError(status: errSecInternalError, operation: "SecItemCopyMatching")
                    }
                    return data
                case errSecItemNotFound:
                    return nil
                default:
                    throw KeychainError(status: status, operation: "SecItemCopyMatching")
                }
            }
        }

        /// Stores `data` under `key`, updating the item if there is one and adding it otherwise.
        ///
        /// - Throws: ``KeychainError`` when the keychain refuses.
        public func setData(_ data: Data, forKey key: String) async throws {
            try await onKeychainQueue { dataProtection in
                let query = self.query(forKey: key, dataProtection: dataProtection)
                let attributes: [String: Any] = [
                    kSecValueData as String: data,
                    kSecAttrAccessible as String: self.accessibility.rawValue,
                ]
                var status = SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
                var operation = "SecItemUpdate"
                if status == errSecItemNotFound {
                    let item = query.merging(attributes) { _, new in new }
                    status = SecItemAdd(item as CFDictionary, nil)
                    operation = "SecItemAdd"
                    if status == errSecDuplicateItem {
                        // Another writer added the item between the update and the add.
                        status = SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
                        operation = "SecItemUpdate"
                    }
                }
                guard status == errSecSuccess else { throw KeychainError(status: status, operation: operation) }
            }
        }

        /// Deletes the item stored under `key`; deleting an item that does not exist is not an error.
        ///
        /// - Throws: ``KeychainError`` when the keychain refuses.
        public func removeData(forKey key: String) async throws {
            try await onKeychainQueue { dataProtection in
                let status = SecItemDelete(self.query(forKey: key, dataProtection: dataProtection) as CFDictionary)
                guard status == errSecSuccess || status == errSecItemNotFound else {
                    throw KeychainError(status: status, operation: "SecItemDelete")
                }
            }
        }

        /// The attributes that identify the item for `key`, in the data protection keychain or, on
        /// macOS, the file-based one.
        private func query(forKey key: String, dataProtection: Bool) -> [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: key,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            if KeychainFallback.hasFileBasedKeychain {
                query[kSecUseDataProtectionKeychain as String] = dataProtection
            }
            return query
        }

        /// Runs `body` on a background queue (keychain calls wait on a system service), on the
        /// data protection keychain, and on macOS once more on the file-based keychain when the
        /// first refuses the process for want of an entitlement (``KeychainFallback``).
        private func onKeychainQueue<Value: Sendable>(
            _ body: @escaping @Sendable (_ dataProtection: Bool) throws -> Value
        ) async throws -> Value {
            let allowed = KeychainFallback.hasFileBasedKeychain && accessGroup == nil
            return try await withHandedContinuation(of: Result<Value, any Error>.self) { continuation in
                DispatchQueue.global(qos: .userInitiated).async {
                    continuation.resume(
                        with: Result {
                            try KeychainFallback.run(
                                allowed: allowed, status: { ($0 as? KeychainError)?.status }, body)
                        })
                }
            }.get()
        }
    }

    extension KeychainCredentialStore {
        /// A keychain call returned a status other than success (or "not found" where that means
        /// nothing is stored).
        public struct KeychainError: Error, LocalizedError, CustomStringConvertible, Sendable {
            /// The `OSStatus` the call returned, such as `errSecInteractionNotAllowed` (-25308).
            public let status: Int32
            /// The call that returned it: `SecItemCopyMatching`, `SecItemUpdate`, `SecItemAdd` or `SecItemDelete`.
            public let operation: String

            init(status: OSStatus, operation: String) {
                self.status = status
                self.operation = operation
            }

            /// `true` when the keychain cannot be used until the user unlocks the device
            /// (`errSecInteractionNotAllowed`): try again later; nothing is lost.
            public var isInteractionNotAllowed: Bool { status == errSecInteractionNotAllowed }

            /// `true` when the app is not entitled to the keychain or the access group (`errSecMissingEntitlement`).
            public var isMissingEntitlement: Bool { status == errSecMissingEntitlement }

            /// The call, the status and the system's message for it.
            public var description: String {
                let message = SecCopyErrorMessageString(status, nil).map { $0 as String } ?? "unknown status"
                return "KeychainError: \(operation) failed: \(message) (OSStatus \(status))."
            }

            /// Same as ``description``.
            public var errorDescription: String? { description }
        }
    }
#endif
