import Foundation

/// RFC 7231 dates (`Sun, 06 Nov 1994 08:49:37 GMT`).
enum HTTPDate {
    /// Parses an HTTP `Date` header. The one form servers send (RFC 9110's IMF-fixdate,
    /// `Sun, 06 Nov 1994 08:49:37 GMT`) is read by hand; anything else falls back to a formatter.
    static func parse(_ text: String) -> Date? {
        if let date = parseFixdate(Array(text.utf8)) { return date }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .map { Array($0.utf8) }
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].map { Array($0.utf8) }

    /// `Www, DD Mmm YYYY HH:MM:SS GMT`, exactly; `nil` for anything else, including a weekday that
    /// does not match the date.
    static func parseFixdate(_ bytes: [UInt8]) -> Date? {
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == UInt8(ascii: " "),
            bytes[7] == UInt8(ascii: " "), bytes[11] == UInt8(ascii: " "), bytes[16] == UInt8(ascii: " "),
            bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"), bytes[25] == UInt8(ascii: " "),
            Array(bytes[26...]) == Array("GMT".utf8),
            let weekday = weekdays.firstIndex(of: Array(bytes[0..<3])),
            let monthIndex = months.firstIndex(of: Array(bytes[8..<11]))
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let day = number(5..<7), let year = number(12..<16), let hour = number(17..<19),
            let minute = number(20..<22), let second = number(23..<25), hour < 24, minute < 60, second < 61
        else { return nil }
        let month = monthIndex + 1
        let monthDays = [
            31, year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28, 31, 30, 31, 30, 31, 31,
            30, 31, 30, 31,
        ]
        guard day >= 1, day <= monthDays[monthIndex] else { return nil }
        // Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        // 1970-01-01 was a Thursday.
        guard ((days % 7) + 11) % 7 == weekday else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }
}
