import Foundation

/// An error answer of V2 read into the ``ServerError`` every answer of the SDK is read into, from
/// either of V2's shapes (Docs/NativeAuthV2Protocol.md, "Errors"): the flat OAuth one of
/// authorize-challenge and token (`error`, `error_description`, `error_codes`, …) or the nested
/// one of the HAL endpoints (`error.code` as `error`, `innerError.code` as `suberror`, `message`
/// as `error_description`, `innerError.details` as ``ServerError/details``). What it means is read
/// by ``ServerError/v2Kind(asked:)``. Server text is cut to ``ServerError/maximumTextLength``
/// characters; unknown codes are kept as they came.
extension ServerError {
    /// Reads an error body: the HAL shape when `error` is an object with a string `code`, the
    /// flat shape when `error` is a string; `nil` otherwise.
    convenience init?(v2Status status: Int, object: WireObject) {
        let token = object.token()
        if let nested = object.object("error") {
            guard let code = nested.text("code", nonEmpty: true) else { return nil }
            let inner = nested.object("innerError")
            let (codes, first) = Self.stsCodes(in: nested.string("message") ?? "")
            // [Android] and [JS] read `correlationId`, [iOS] `correlation_id`: either is taken.
            self.init(
                status: status, error: code, suberror: inner?.text("code", nonEmpty: true), errorCodes: codes,
                firstCode: first, errorDescription: nested.text("message"),
                traceId: nested.text("traceId", or: "trace_id"),
                correlationId: nested.text("correlationId", or: "correlation_id"),
                timestamp: nested.text("timestamp"), continuationToken: token, details: ServerErrorDetail.list(inner))
        } else {
            guard let code = object.text("error", nonEmpty: true) else { return nil }
            let description = object.string("error_description")
            let codes: [Int]
            let first: Int?
            // A listed entry, representable or not, is the first code; only no list at all (or an
            // empty one) sends the reader to the message.
            if object.members["error_codes"].map({ $0.arrayValue.map { !$0.isEmpty } ?? true }) == true {
                codes = Array(object.intList("error_codes").prefix(ServerError.maximumCodes))
                first = object.firstListedInt("error_codes")
            } else {
                (codes, first) = Self.stsCodes(in: description ?? "")
            }
            self.init(
                status: status, error: code, suberror: object.text("suberror", nonEmpty: true), errorCodes: codes,
                firstCode: first, errorDescription: description.map(ServerError.capped),
                traceId: object.text("trace_id", or: "traceId"),
                correlationId: object.text("correlation_id", or: "correlationId"),
                timestamp: object.text("timestamp"), continuationToken: token)
        }
    }

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
            let code = !digits.isEmpty && digits.count <= 9 ? Int(decimal: String(digits)) : nil
            if first == nil { first = .some(code) }
            if let code { codes.append(code) }
            rest = rest[mark.upperBound...]
        }
        return (codes, first ?? nil)
    }

    /// `redirect_to_web`: the server asks for a browser (Docs/NativeAuthV2Protocol.md, "Browser required").
    var isBrowserRequired: Bool { namesFolded("redirect_to_web") }
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
