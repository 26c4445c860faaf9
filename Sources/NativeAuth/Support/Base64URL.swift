import Foundation

/// base64url without padding (RFC 4648 §5), as JWTs and PKCE use it.
enum Base64URL {
    static func encode(_ data: Data) -> String {
        var text = data.base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Decodes base64url, with or without trailing padding; `nil` for anything else.
    static func decode(_ string: String) -> Data? {
        var body = Substring(string)
        while body.hasSuffix("=") { body = body.dropLast() }
        guard body.unicodeScalars.allSatisfy({ alphabet.contains($0) }) else { return nil }
        var text = body.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        switch text.count % 4 {
        case 0: break
        case 2: text += "=="
        case 3: text += "="
        default: return nil
        }
        return Data(base64Encoded: text)
    }

    private static let alphabet = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
}
