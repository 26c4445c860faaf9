import Foundation

/// An error answer of V2, in either shape (Docs/NativeAuthV2.md, "Errors"): the flat OAuth one of
/// authorize-challenge and token (`error`, `error_description`, `error_codes`, …) or the nested
/// one of the HAL endpoints (`error.code`, `message`, `innerError.code`, …). Server text is cut to
/// ``ServerError/maximumTextLength`` characters; unknown codes are kept as they came.
struct V2ServerError: Sendable, Equatable {
    enum Shape: Sendable, Equatable { case oauth, hal }

    let status: Int
    let shape: Shape
    /// `error` (flat) or `error.code` (HAL).
    let code: String
    /// `innerError.code` (HAL), or `suberror` (flat, as V1 sends it).
    let innerCode: String?
    /// `error_description` (flat) or `message` (HAL).
    let message: String?
    /// `error_codes` (flat), else the `AADSTS` numbers found in the message, in order.
    let errorCodes: [Int]
    /// The first code, the only one classified by (as ``ServerError/firstCode``): `nil` when the
    /// first listed entry, or the first `AADSTS` number of the message, is not a representable
    /// integer; the next one never stands in for it.
    let firstCode: Int?
    let correlationId: String?
    let traceId: String?
    let timestamp: String?
    /// A continuation token some error answers carry (`continuationToken`, or `continuation_token`).
    let continuationToken: Secret?
    /// `error.innerError.details` (HAL shape only): what each refused value was, and which
    /// attributes it names (Docs/NativeAuthV2.md, "Sign-up").
    let details: [V2ErrorDetail]

    /// Reads an error body: the HAL shape when `error` is an object with a string `code`, the
    /// flat shape when `error` is a string; `nil` otherwise.
    init?(status: Int, object: WireObject) {
        self.status = status
        continuationToken = object.token()
        if let nested = object.object("error") {
            guard let code = nested.string("code").map(ServerError.capped), !code.isEmpty else { return nil }
            shape = .hal
            self.code = code
            innerCode = nested.object("innerError")?.string("code").map(ServerError.capped).flatMap(Self.nonEmpty)
            message = nested.string("message").map(ServerError.capped)
            (errorCodes, firstCode) = Self.stsCodes(in: nested.string("message") ?? "")
            // [Android] and [JS] read `correlationId`, [iOS] `correlation_id`: either is taken.
            correlationId = (nested.string("correlationId") ?? nested.string("correlation_id")).map(ServerError.capped)
            traceId = (nested.string("traceId") ?? nested.string("trace_id")).map(ServerError.capped)
            timestamp = nested.string("timestamp").map(ServerError.capped)
            details = V2ErrorDetail.list(nested.object("innerError"))
        } else {
            guard let code = object.string("error").map(ServerError.capped), !code.isEmpty else { return nil }
            shape = .oauth
            self.code = code
            innerCode = object.string("suberror").map(ServerError.capped).flatMap(Self.nonEmpty)
            let description = object.string("error_description")
            message = description.map(ServerError.capped)
            // A listed entry, representable or not, is the first code; only no list at all (or an
            // empty one) sends the reader to the message.
            if object.members["error_codes"].map({ $0.arrayValue.map { !$0.isEmpty } ?? true }) == true {
                errorCodes = Array(object.intList("error_codes").prefix(ServerError.maximumCodes))
                firstCode = object.firstListedInt("error_codes")
            } else {
                (errorCodes, firstCode) = Self.stsCodes(in: description ?? "")
            }
            correlationId = (object.string("correlation_id") ?? object.string("correlationId")).map(ServerError.capped)
            traceId = (object.string("trace_id") ?? object.string("traceId")).map(ServerError.capped)
            timestamp = object.string("timestamp").map(ServerError.capped)
            details = []
        }
    }

    private static func nonEmpty(_ text: String) -> String? { text.isEmpty ? nil : text }

    /// The numbers after `AADSTS` in `text`, at most ``ServerError/maximumCodes`` of them, each of
    /// at most nine digits (the pattern [Android] reads them with).
    /// The first number is `nil` when the first `AADSTS` mark is followed by no digits or by more
    /// than nine.
    static func stsCodes(in text: String) -> (codes: [Int], first: Int?) {
        var codes: [Int] = []
        var first: Int?? = .none
        var rest = Substring(text.prefix(4_096))
        while codes.count < ServerError.maximumCodes, let mark = rest.range(of: "AADSTS") {
            let digits = rest[mark.upperBound...].prefix(while: { $0.isASCII && $0.isNumber })
            let code = !digits.isEmpty && digits.count <= 9 ? Int(digits) : nil
            if first == nil { first = .some(code) }
            if let code { codes.append(code) }
            rest = rest[mark.upperBound...]
        }
        return (codes, first ?? nil)
    }

    /// Whether `code` or `innerCode` is `name`, in its V2 camelCase spelling or the V1 snake_case
    /// one ([Android] accepts both): compared without case and underscores.
    func names(_ name: String) -> Bool {
        [code, innerCode].contains { $0.map(Self.folded) == Self.folded(name) }
    }

    static func folded(_ text: String) -> String {
        String(text.lowercased().unicodeScalars.filter { $0 != "_" })
    }

    /// `redirect_to_web`: the server asks for a browser (Docs/NativeAuthV2.md, "Browser required").
    var isBrowserRequired: Bool { names("redirect_to_web") }

    /// The password policy codes of the Errors table, by their folded spelling.
    static let passwordViolations: [String: PasswordPolicyViolation] = [
        "passwordtooweak": .tooWeak, "passwordtooshort": .tooShort, "passwordtoolong": .tooLong,
        "passwordisinvalid": .invalid, "passwordrecentlyused": .recentlyUsed, "passwordbanned": .banned,
    ]

    /// What the error means, as the SDK's error types say it: the Errors table of
    /// Docs/NativeAuthV2.md, read code by code; anything else is ``ErrorKind/general``.
    var kind: ErrorKind {
        if isBrowserRequired { return .browserRequired }
        if names("invalidOneTimeCode") || (names("invalidGrant") && firstCode == 50184) { return .invalidCode }
        if names("invalidContinuationToken") || firstCode == 55200 || names("expiredToken") { return .flowExpired }
        if let inner = [innerCode, code].compactMap({ $0 }).lazy.compactMap({ Self.passwordViolations[Self.folded($0)] }
        )
        .first {
            return .invalidPassword(inner)
        }
        if names("invalidUserNameOrPassword") || firstCode == 50126 { return .invalidCredentials }
        if names("userNotFound") || firstCode == 50034 { return .userNotFound }
        // The OAuth refusals of a client (step 1's and the token endpoint's flat shape, RFC 6749
        // §5.2): the app's configuration, as V1 reads them; not the user's to correct.
        if names("invalid_client") || names("unauthorized_client") { return .configuration }
        if let signUpKind { return signUpKind }
        // Method registration: V1's numbers for a contact that is not valid and a blocked method,
        // read from the message as every V2 `AADSTS` number is (no V2 source names these).
        if firstCode == 901_001 { return .invalidInput }
        if firstCode == 550_024 { return .methodBlocked }
        return .general
    }
}

extension WireObject {
    /// The continuation token, `continuationToken` (every HAL answer) or `continuation_token`
    /// (step 1, and V1's spelling), the answer's documented spelling first; `nil` when missing or
    /// empty.
    func token(snakeFirst: Bool = false) -> Secret? {
        let camel = string("continuationToken").flatMap { $0.isEmpty ? nil : $0 }
        let snake = string("continuation_token").flatMap { $0.isEmpty ? nil : $0 }
        return (snakeFirst ? snake ?? camel : camel ?? snake).map(Secret.init)
    }
}
