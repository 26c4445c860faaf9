import Foundation

/// The on-disk format of one item of the file credential store.
///
/// Every version starts with the same ten-byte header, so any reader can tell a
/// credential file from anything else and see which version wrote it:
///
/// ```
/// offset  size  field
///      0     8  magic: ASCII "NAUTHCS" and a newline (4E 41 55 54 48 43 53 0A)
///      8     2  format version, unsigned big-endian (never 0)
/// ```
///
/// What follows depends on the version. Version 1 (current):
///
/// ```
///     10     4  payload length n, unsigned big-endian
///     14     n  payload: the bytes the SDK stored
///   14+n     4  CRC-32 (IEEE) of bytes 0 ..< 14+n, unsigned big-endian
/// ```
///
/// The file ends right after the checksum; anything shorter, longer or with another checksum
/// is damaged.
///
/// ## Migrating to a new version
///
/// Readers accept every version from 1 up to ``currentVersion`` and convert older ones to the
/// payload the SDK expects; writers always write ``currentVersion``. To add version 2 (say, an
/// encrypted payload): add `decodeVersion2`, add `case 2` to the switch in ``decode(_:)``, make
/// ``encode(_:)`` write version 2 and raise ``currentVersion`` to 2. Version 1 files keep reading
/// through `decodeVersion1`, and are rewritten as version 2 the next time the SDK stores the item.
/// A file whose version is above ``currentVersion`` was written by a newer SDK: reading reports
/// it and never rewrites it.
enum CredentialEnvelope {
    /// The version ``encode(_:)`` writes and the highest version ``decode(_:)`` reads.
    static let currentVersion: UInt16 = 1

    /// The header every version starts with.
    static let magic: [UInt8] = Array("NAUTHCS\n".utf8)

    /// The largest payload a version 1 envelope carries: far more than any credential, and small
    /// enough that a damaged length field cannot make a reader allocate without bound.
    static let maximumPayloadSize = 16 * 1024 * 1024

    /// The bytes of magic, version, length and checksum around a version 1 payload.
    static let overhead = 18

    /// Why an envelope could not be read.
    enum DecodeFailure: Error, Equatable {
        case damaged(CredentialStoreDamagedError.Code)
        case unsupportedVersion(UInt16)
    }

    /// The version 1 envelope of `payload`. `payload` must not exceed ``maximumPayloadSize``.
    static func encode(_ payload: Data) -> [UInt8] {
        var bytes = magic
        bytes.reserveCapacity(overhead + payload.count)
        appendBigEndian(UInt32(currentVersion), size: 2, to: &bytes)
        appendBigEndian(UInt32(truncatingIfNeeded: payload.count), size: 4, to: &bytes)
        bytes.append(contentsOf: payload)
        appendBigEndian(CRC32.checksum(bytes[...]), size: 4, to: &bytes)
        return bytes
    }

    /// The payload of an envelope of any supported version.
    static func decode(_ bytes: [UInt8]) throws(DecodeFailure) -> Data {
        guard bytes.count >= magic.count + 2 else {
            // A file cut short inside the header is truncated; anything else is not ours.
            let head = bytes.prefix(magic.count)
            let isPrefix = head.elementsEqual(magic.prefix(head.count))
            throw .damaged(isPrefix ? .truncated : .notAnEnvelope)
        }
        guard bytes[0..<magic.count].elementsEqual(magic) else { throw .damaged(.notAnEnvelope) }
        let version = UInt16(bytes[8]) << 8 | UInt16(bytes[9])
        switch version {
        case 0:
            throw .damaged(.notAnEnvelope)
        case 1:
            return try decodeVersion1(bytes)
        // case 2: return try decodeVersion2(bytes)  // when version 2 exists; see the type's notes.
        default:
            throw .unsupportedVersion(version)
        }
    }

    /// Version 1: length, payload, CRC-32 of everything before the checksum.
    private static func decodeVersion1(_ bytes: [UInt8]) throws(DecodeFailure) -> Data {
        let headerSize = magic.count + 2 + 4
        guard bytes.count >= headerSize else { throw .damaged(.truncated) }
        let length = Int(readBigEndian32(bytes, at: magic.count + 2))
        guard length <= maximumPayloadSize else { throw .damaged(.notAnEnvelope) }
        let end = headerSize + length
        guard bytes.count >= end + 4 else { throw .damaged(.truncated) }
        guard bytes.count == end + 4 else { throw .damaged(.trailingBytes) }
        guard CRC32.checksum(bytes[0..<end]) == readBigEndian32(bytes, at: end) else {
            throw .damaged(.checksumMismatch)
        }
        return Data(bytes[headerSize..<end])
    }

    /// Appends the low `size` bytes of `value`, most significant first.
    private static func appendBigEndian(_ value: UInt32, size: Int, to bytes: inout [UInt8]) {
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
        }
    }

    private static func readBigEndian32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }
}
