/// CRC-32 as IEEE 802.3, zlib and PNG compute it (reflected polynomial 0xEDB88320, initial value
/// and final XOR 0xFFFFFFFF). The check value of the ASCII bytes "123456789" is 0xCBF43926.
///
/// The file credential store uses it to detect truncated and damaged files; it is not a defence
/// against someone who can write the file on purpose.
enum CRC32 {
    /// The CRC-32 of `bytes`.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
        }
        return value
    }
}
