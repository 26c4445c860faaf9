import Foundation

/// Small encoders the emulator needs: base64url (both ways), masked contact labels, HTTP dates, UUIDs.
enum Encoding {
    /// Base64url without padding (RFC 4648 §5), as JWTs and `client_info` use it.
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of base64url text, with or without padding, or `nil` when it is not base64url.
    static func base64URLDecode(_ text: String) -> Data? {
        guard !text.contains("+"), !text.contains("/") else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    /// `count` random bytes from `random`, base64url-encoded.
    static func randomToken(byteCount: Int, from random: any EmulatorRandomSource) -> String {
        base64URL(randomBytes(byteCount, from: random))
    }

    static func randomBytes(_ count: Int, from random: any EmulatorRandomSource) -> Data {
        var bytes = Data()
        bytes.reserveCapacity(count)
        while bytes.count < count {
            var value = random.next()
            for _ in 0..<8 where bytes.count < count {
                bytes.append(UInt8(truncatingIfNeeded: value))
                value >>= 8
            }
        }
        return bytes
    }

    /// A version-4-shaped UUID string (lowercase) from 128 bits.
    static func uuidString(high: UInt64, low: UInt64) -> String {
        var bytes: [UInt8] = []
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: high >> UInt64(shift)))
        }
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: low >> UInt64(shift)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]]
            .map { $0.joined() }
            .joined(separator: "-")
    }

    /// A random UUID string drawn from `random`.
    static func randomUUID(from random: any EmulatorRandomSource) -> String {
        uuidString(high: random.next(), low: random.next())
    }

    /// A UUID string that depends only on `name`: the same name always gives the same UUID.
    static func stableUUID(_ name: String) -> String {
        uuidString(high: fnv1a(name, basis: 0xCBF2_9CE4_8422_2325), low: fnv1a(name, basis: 0x8422_2325_CBF2_9CE4))
    }

    /// FNV-1a over the UTF-8 bytes of `text`, with a final avalanche so close names differ widely.
    static func fnv1a(_ text: String, basis: UInt64) -> UInt64 {
        var hash = basis
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        hash = (hash ^ (hash >> 33)) &* 0xFF51_AFD7_ED55_8CCD
        hash = (hash ^ (hash >> 33)) &* 0xC4CE_B9FE_1A85_EC53
        return hash ^ (hash >> 33)
    }

    /// A contact as the server shows it back: `alice@contoso.com` → `a***e@co**o.com`,
    /// `+15551234567` → `+*******4567`.
    static func maskedLabel(_ address: String) -> String {
        guard let at = address.lastIndex(of: "@") else { return maskedPhone(address) }
        let local = String(address[..<at])
        let domain = String(address[address.index(after: at)...])
        let maskedLocal: String
        switch local.count {
        case 0: maskedLocal = "***"
        case 1: maskedLocal = local + "***"
        default: maskedLocal = "\(local.prefix(1))***\(local.suffix(1))"
        }
        var domainName = domain
        var topLevel = ""
        if let dot = domain.lastIndex(of: ".") {
            domainName = String(domain[..<dot])
            topLevel = String(domain[dot...])
        }
        let maskedDomain =
            domainName.count > 3
            ? "\(domainName.prefix(2))**\(domainName.suffix(1))" : "\(domainName.prefix(1))**"
        return "\(maskedLocal)@\(maskedDomain)\(topLevel)"
    }

    private static func maskedPhone(_ number: String) -> String {
        let prefix = number.hasPrefix("+") ? "+" : ""
        let digits = number.dropFirst(prefix.count)
        guard digits.count > 4 else { return prefix + String(repeating: "*", count: digits.count) }
        return prefix + String(repeating: "*", count: digits.count - 4) + digits.suffix(4)
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func utcComponents(_ date: Date) -> DateComponents {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
    }

    private static func twoDigits(_ value: Int?) -> String {
        let value = value ?? 0
        return value < 10 ? "0\(value)" : "\(value)"
    }

    /// The RFC 1123 form of `date` used in the `Date` header: `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func httpDate(_ date: Date) -> String {
        let parts = utcComponents(date)
        let weekday = weekdays[((parts.weekday ?? 1) - 1 + 7) % 7]
        let month = months[((parts.month ?? 1) - 1 + 12) % 12]
        let time = "\(twoDigits(parts.hour)):\(twoDigits(parts.minute)):\(twoDigits(parts.second))"
        return "\(weekday), \(twoDigits(parts.day)) \(month) \(parts.year ?? 1970) \(time) GMT"
    }

    /// The form of `date` used in error bodies: `2024-05-01 12:00:00Z`.
    static func errorTimestamp(_ date: Date) -> String {
        let parts = utcComponents(date)
        let day = "\(parts.year ?? 1970)-\(twoDigits(parts.month))-\(twoDigits(parts.day))"
        return "\(day) \(twoDigits(parts.hour)):\(twoDigits(parts.minute)):\(twoDigits(parts.second))Z"
    }
}
