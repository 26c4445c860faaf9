import Foundation
import NativeAuth

/// The JSON body of a request to a Native Auth V2 HAL endpoint: one object with camelCase keys
/// (Docs/NativeAuthV2Protocol.md, "Interaction requests"), read strictly. Anything else is refused with
/// `invalidRequest`, never a crash.
struct V2RequestBody {
    let object: JSONObject

    /// The body of `request`: `Content-Type` `application/json` (or another `+json` type, such as
    /// `application/hal+json`), UTF-8, one JSON object.
    init(_ request: HTTPRequest) throws(HALError) {
        let contentType = request.header("Content-Type")
        let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard let mediaType, mediaType == "application/json" || mediaType.hasSuffix("+json") else {
            throw .malformed("the body must be application/json; got '\(contentType ?? "no Content-Type")'")
        }
        guard let body = request.body, !body.isEmpty else { throw .malformed("the body is empty") }
        guard let text = String(data: body, encoding: .utf8) else { throw .malformed("the body is not UTF-8") }
        let value: JSON
        do throws(JSONParser.Failure) {
            value = try JSONParser.parse(text)
        } catch {
            throw .malformed("the body is not JSON (error at byte \(error.offset))")
        }
        guard case .object(let object) = value else { throw .malformed("the body is not a JSON object") }
        self.object = object
    }

    /// The non-empty string `key`; `invalidRequest` when it is absent, empty or not a string.
    func string(_ key: String) throws(HALError) -> String {
        guard case .string(let value)? = object[key], !value.isEmpty else { throw .missing(key) }
        return value
    }
}

/// The method a `…/auth/methods/{type}/{id}/{challenge|verify}` request is for, from its path.
struct V2MethodPath: Equatable {
    var type: String
    var id: String

    /// The method of `url`, whose path the tenant routed to a method endpoint; `nil` when it has
    /// no such segments.
    init?(_ url: URL) {
        guard let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath else {
            return nil
        }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 3,
            let type = segments[segments.count - 3].removingPercentEncoding,
            let id = segments[segments.count - 2].removingPercentEncoding
        else { return nil }
        self.type = type
        self.id = id
    }

    /// `api/v2.0/auth/methods/{type}/{id}/{action}`, each segment percent-encoded.
    static func path(type: String, id: String, action: String) -> String {
        "api/v2.0/auth/methods/\(segment(type))/\(segment(id))/\(action)"
    }

    /// `text` with everything but unreserved characters percent-encoded (RFC 3986 §2.3).
    static func segment(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            let unreserved =
                byte < 0x80
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || "-._~".unicodeScalars.contains(scalar))
            if unreserved {
                encoded.unicodeScalars.append(scalar)
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                encoded += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return encoded
    }
}
