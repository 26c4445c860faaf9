// A stand-in for Apple's Security framework, for Scripts/apple-typecheck.sh only: it declares the
// symbols the SDK's `canImport(Security)` code uses, with the Swift signatures developer.apple.com
// shows (each declaration cites its page), so that code type-checks on Linux. Nothing here runs:
// the bodies trap, and the constants' values are their own names.
//
// Modelling notes:
// - On Darwin, `import Security` also brings CoreFoundation's types. swift-corelibs-foundation has
//   none of them, so they are declared here. CFString, CFDictionary, CFData and CFError are
//   toll-free bridged with NSString, NSDictionary, NSData and NSError on Darwin, which is what makes
//   `query as CFDictionary`, `data as CFData` and `cfString as String` compile there; here they are
//   typealiases of swift-corelibs-foundation's NS classes, so the same `as` conversions compile and
//   forgetting one fails as it does on Darwin. (The one thing this allows that Darwin does not: an
//   NSString passes for a CFString without `as`.)
// - CF types (SecKey, SecAccessControl) are classes Swift code cannot create or subclass; they are
//   declared non-Sendable, the conservative choice: whether a recent SDK marks them Sendable is
//   not shown on their pages.
// - Availability attributes are left out: Swift ignores iOS and macOS availability on Linux, so
//   they would check nothing here. The check reads availability from availability.json instead.
public import Foundation

// On Darwin, Foundation holds URLSession and the rest of networking; swift-corelibs-foundation keeps
// them in FoundationNetworking, re-exported here so that Apple-only code importing Foundation and
// Security finds them as it does on Darwin.
#if canImport(FoundationNetworking)
    @_exported public import FoundationNetworking
#endif

// MARK: - CoreFoundation, as Security re-exports it

/// The result code of Security calls. Apple: `typealias OSStatus = Int32`.
/// https://developer.apple.com/documentation/kernel/osstatus
public typealias OSStatus = Int32

/// Any CoreFoundation object. Apple: `typealias CFTypeRef = AnyObject`.
/// https://developer.apple.com/documentation/corefoundation/cftyperef
public typealias CFTypeRef = AnyObject

/// A CoreFoundation string, toll-free bridged with NSString (see the file's notes).
/// https://developer.apple.com/documentation/corefoundation/cfstring
public typealias CFString = NSString

/// A CoreFoundation dictionary, toll-free bridged with NSDictionary (see the file's notes).
/// https://developer.apple.com/documentation/corefoundation/cfdictionary
public typealias CFDictionary = NSDictionary

/// A CoreFoundation data object, toll-free bridged with NSData (see the file's notes).
/// https://developer.apple.com/documentation/corefoundation/cfdata
public typealias CFData = NSData

/// A CoreFoundation error, toll-free bridged with NSError (see the file's notes).
/// https://developer.apple.com/documentation/corefoundation/cferror
public typealias CFError = NSError

/// A memory allocator; Security calls take `nil` for the default one.
/// https://developer.apple.com/documentation/corefoundation/cfallocator
public final class CFAllocator {}

/// Bit flags. Apple: `typealias CFOptionFlags = UInt`.
/// https://developer.apple.com/documentation/corefoundation/cfoptionflags
public typealias CFOptionFlags = UInt

// MARK: - Result codes

/// No error. https://developer.apple.com/documentation/security/errsecsuccess
public var errSecSuccess: OSStatus { 0 }

/// The item cannot be found. https://developer.apple.com/documentation/security/errsecitemnotfound
public var errSecItemNotFound: OSStatus { -25300 }

/// The item already exists. https://developer.apple.com/documentation/security/errsecduplicateitem
public var errSecDuplicateItem: OSStatus { -25299 }

/// An internal error. https://developer.apple.com/documentation/security/errsecinternalerror
public var errSecInternalError: OSStatus { -26276 }

/// User interaction is not allowed, as while the device is locked.
/// https://developer.apple.com/documentation/security/errsecinteractionnotallowed
public var errSecInteractionNotAllowed: OSStatus { -25308 }

/// A required entitlement is missing.
/// https://developer.apple.com/documentation/security/errsecmissingentitlement
public var errSecMissingEntitlement: OSStatus { -34018 }

/// The system's message for a result code.
/// https://developer.apple.com/documentation/security/seccopyerrormessagestring(_:_:)
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    fatalError("stub")
}

// MARK: - Keychain items

/// Returns the items that match a query.
/// https://developer.apple.com/documentation/security/secitemcopymatching(_:_:)
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    fatalError("stub")
}

/// Adds an item. https://developer.apple.com/documentation/security/secitemadd(_:_:)
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    fatalError("stub")
}

/// Changes the items that match a query.
/// https://developer.apple.com/documentation/security/secitemupdate(_:_:)
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    fatalError("stub")
}

/// Deletes the items that match a query.
/// https://developer.apple.com/documentation/security/secitemdelete(_:)
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    fatalError("stub")
}

/// The key of an item's class. https://developer.apple.com/documentation/security/ksecclass
nonisolated(unsafe) public let kSecClass: CFString = "kSecClass"

/// The class of generic password items.
/// https://developer.apple.com/documentation/security/ksecclassgenericpassword
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = "kSecClassGenericPassword"

/// The key of an item's service. https://developer.apple.com/documentation/security/ksecattrservice
nonisolated(unsafe) public let kSecAttrService: CFString = "kSecAttrService"

/// The key of an item's account. https://developer.apple.com/documentation/security/ksecattraccount
nonisolated(unsafe) public let kSecAttrAccount: CFString = "kSecAttrAccount"

/// The key of an item's access group.
/// https://developer.apple.com/documentation/security/ksecattraccessgroup
nonisolated(unsafe) public let kSecAttrAccessGroup: CFString = "kSecAttrAccessGroup"

/// The key of when an item can be read.
/// https://developer.apple.com/documentation/security/ksecattraccessible
nonisolated(unsafe) public let kSecAttrAccessible: CFString = "kSecAttrAccessible"

/// After the first unlock, this device only.
/// https://developer.apple.com/documentation/security/ksecattraccessibleafterfirstunlockthisdeviceonly
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString =
    "kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly"

/// After the first unlock. https://developer.apple.com/documentation/security/ksecattraccessibleafterfirstunlock
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlock: CFString = "kSecAttrAccessibleAfterFirstUnlock"

/// While unlocked, this device only.
/// https://developer.apple.com/documentation/security/ksecattraccessiblewhenunlockedthisdeviceonly
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString =
    "kSecAttrAccessibleWhenUnlockedThisDeviceOnly"

/// While unlocked. https://developer.apple.com/documentation/security/ksecattraccessiblewhenunlocked
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlocked: CFString = "kSecAttrAccessibleWhenUnlocked"

/// While unlocked with a passcode set, this device only.
/// https://developer.apple.com/documentation/security/ksecattraccessiblewhenpasscodesetthisdeviceonly
nonisolated(unsafe) public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString =
    "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly"

/// The key asking for the item's data. https://developer.apple.com/documentation/security/ksecreturndata
nonisolated(unsafe) public let kSecReturnData: CFString = "kSecReturnData"

/// The key of how many items to return. https://developer.apple.com/documentation/security/ksecmatchlimit
nonisolated(unsafe) public let kSecMatchLimit: CFString = "kSecMatchLimit"

/// One item. https://developer.apple.com/documentation/security/ksecmatchlimitone
nonisolated(unsafe) public let kSecMatchLimitOne: CFString = "kSecMatchLimitOne"

/// The key of an item's data. https://developer.apple.com/documentation/security/ksecvaluedata
nonisolated(unsafe) public let kSecValueData: CFString = "kSecValueData"

/// The key choosing the data protection keychain on macOS (KeychainCredentialStore sets it where
/// the file-based keychain exists).
/// https://developer.apple.com/documentation/security/ksecusedataprotectionkeychain
nonisolated(unsafe) public let kSecUseDataProtectionKeychain: CFString = "kSecUseDataProtectionKeychain"

// MARK: - Keys

/// A cryptographic key. https://developer.apple.com/documentation/security/seckey
public final class SecKey {}

/// The key of a key's type. https://developer.apple.com/documentation/security/ksecattrkeytype
nonisolated(unsafe) public let kSecAttrKeyType: CFString = "kSecAttrKeyType"

/// RSA. https://developer.apple.com/documentation/security/ksecattrkeytypersa
nonisolated(unsafe) public let kSecAttrKeyTypeRSA: CFString = "kSecAttrKeyTypeRSA"

/// The key of a key's class. https://developer.apple.com/documentation/security/ksecattrkeyclass
nonisolated(unsafe) public let kSecAttrKeyClass: CFString = "kSecAttrKeyClass"

/// A public key. https://developer.apple.com/documentation/security/ksecattrkeyclasspublic
nonisolated(unsafe) public let kSecAttrKeyClassPublic: CFString = "kSecAttrKeyClassPublic"

/// An algorithm for key operations, wrapping a CFString.
/// https://developer.apple.com/documentation/security/seckeyalgorithm
public struct SecKeyAlgorithm: Hashable, RawRepresentable, @unchecked Sendable {
    /// The algorithm's name.
    public var rawValue: CFString

    /// An algorithm from its name.
    public init(rawValue: CFString) { self.rawValue = rawValue }

    /// RSASSA-PKCS1-v1_5 over SHA-256 of the message.
    /// https://developer.apple.com/documentation/security/seckeyalgorithm/rsasignaturemessagepkcs1v15sha256
    public static let rsaSignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm(
        rawValue: "algid:sign:RSA:message-PKCS1v15:SHA256")

    /// RSASSA-PSS over SHA-256 of the message (MGF1 with SHA-256, a salt as long as the digest).
    /// https://developer.apple.com/documentation/security/seckeyalgorithm/rsasignaturemessagepsssha256
    public static let rsaSignatureMessagePSSSHA256 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PSS:SHA256")
}

/// Restores a key from its external representation (PKCS #1 for RSA).
/// https://developer.apple.com/documentation/security/seckeycreatewithdata(_:_:_:)
public func SecKeyCreateWithData(
    _ keyData: CFData, _ attributes: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? {
    fatalError("stub")
}

/// Verifies a signature.
/// https://developer.apple.com/documentation/security/seckeyverifysignature(_:_:_:_:_:)
public func SecKeyVerifySignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> Bool {
    fatalError("stub")
}

// MARK: - Access control (CryptoKit's Secure Enclave keys take one)

/// How an item or key may be used. https://developer.apple.com/documentation/security/secaccesscontrol
public final class SecAccessControl {}

/// The conditions of an access control.
/// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags
public struct SecAccessControlCreateFlags: OptionSet, @unchecked Sendable {
    /// The flags' bits.
    public let rawValue: CFOptionFlags

    /// Flags from their bits.
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/init(rawvalue:)
    public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }

    /// Biometry or the passcode.
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/userpresence
    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    /// Any enrolled biometry.
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/biometryany
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    /// The biometry enrolled now; invalidated when it changes.
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/biometrycurrentset
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    /// The device passcode.
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/devicepasscode
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
    /// The private key may be used for signing (required for Secure Enclave keys).
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/privatekeyusage
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
}

/// Creates an access control.
/// https://developer.apple.com/documentation/security/secaccesscontrolcreatewithflags(_:_:_:_:)
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
    fatalError("stub")
}

// MARK: - Trust (the certificate pinning sample, Tests/DocSnippetTests/TransportPinningSample.swift)

/// An array of CoreFoundation objects. Apple: `class CFArray`, toll-free bridged with NSArray, so
/// `array as? [SecCertificate]` compiles; here a typealias of NSArray, like CFDictionary above.
/// https://developer.apple.com/documentation/corefoundation/cfarray
public typealias CFArray = NSArray

/// An X.509 certificate. SecBase.h: `typedef struct __SecCertificate *SecCertificateRef`.
/// https://developer.apple.com/documentation/security/seccertificate
public final class SecCertificate {}

/// A trust evaluation of a certificate chain. SecBase.h: `typedef struct __SecTrust *SecTrustRef`.
/// https://developer.apple.com/documentation/security/sectrust
public final class SecTrust {}

/// Evaluates trust (SecTrust.h: `bool SecTrustEvaluateWithError(SecTrustRef trust, CFErrorRef *error)`).
/// https://developer.apple.com/documentation/security/sectrustevaluatewitherror(_:_:)
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool {
    fatalError("stub")
}

/// The evaluated chain, leaf first (SecTrust.h: `CFArrayRef SecTrustCopyCertificateChain(SecTrustRef trust)`,
/// `_Nullable`, CF_RETURNS_RETAINED).
/// https://developer.apple.com/documentation/security/sectrustcopycertificatechain(_:)
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? {
    fatalError("stub")
}

/// A certificate's DER (SecCertificate.h: `CFDataRef SecCertificateCopyData(SecCertificateRef certificate)`).
/// https://developer.apple.com/documentation/security/seccertificatecopydata(_:)
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData {
    fatalError("stub")
}

// MARK: - Foundation's server trust API, which takes Security's types

// On Darwin, Foundation declares these with Security's SecTrust; swift-corelibs-foundation has no
// SecTrust and declares NSURLAuthenticationMethodServerTrust unavailable. The compiler prefers an
// available declaration to an unavailable one of the same name, so these stand in for Darwin's.

/// NSURLProtectionSpace.h: `NSURLAuthenticationMethodServerTrust`.
/// https://developer.apple.com/documentation/foundation/nsurlauthenticationmethodservertrust
public let NSURLAuthenticationMethodServerTrust: String = "NSURLAuthenticationMethodServerTrust"

extension URLProtectionSpace {
    /// NSURLProtectionSpace.h: `@property (nullable, readonly) SecTrustRef serverTrust`.
    /// https://developer.apple.com/documentation/foundation/urlprotectionspace/servertrust
    public var serverTrust: SecTrust? { fatalError("stub") }
}

extension URLCredential {
    /// NSURLCredential.h: `- (instancetype)initWithTrust:(SecTrustRef)trust`.
    /// https://developer.apple.com/documentation/foundation/urlcredential/init(trust:)
    public convenience init(trust: SecTrust) { fatalError("stub") }
}
