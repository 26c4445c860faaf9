import Foundation
import NativeAuth

/// The answers of the browser endpoints: HTML pages, and redirects back to the app.
extension TenantState {
    /// The browser sent back to `redirectURI` with `parameters` and `state`.
    func redirectBack(
        to redirectURI: String, mode: AcceptedAuthorizationRequest.ResponseMode, _ parameters: [(String, String)],
        state: String?, call: Call
    ) -> HTTPResponse {
        var all = parameters
        if let state { all.append(("state", state)) }
        return redirect(to: Self.appending(all, to: redirectURI, mode: mode), call: call)
    }

    private func redirect(to location: String, call: Call) -> HTTPResponse {
        var response = page(status: 302, EmulatorLoginPage.movedTo(location), call)
        response.headers["Location"] = location
        return response
    }

    /// `error`, `error_description` (with the trace and correlation ids, as Entra writes it).
    func errorParameters(_ error: APIError, call: Call, correlationId: String?) -> [(String, String)] {
        [
            ("error", error.error),
            ("error_description", errorDescription(error, call: call, correlationId: correlationId)),
        ]
    }

    /// An HTML error page; the browser stays at the tenant.
    func errorPage(_ error: APIError, _ call: Call) -> HTTPResponse {
        let text = errorDescription(error, call: call, correlationId: call.correlationId)
        return page(
            status: 400,
            EmulatorLoginPage.message(title: "Sorry, but we're having trouble signing you in.", text: text), call)
    }

    /// The description of `error` with a fresh trace id, `correlationId` (a fresh one when `nil`) and
    /// the call's time.
    private func errorDescription(_ error: APIError, call: Call, correlationId: String?) -> String {
        let traceId = Encoding.randomUUID(from: random)
        return error.description(
            traceId: traceId, correlationId: correlationId ?? Encoding.randomUUID(from: random),
            timestamp: Encoding.errorTimestamp(call.now))
    }

    func page(status: Int, _ html: String, _ call: Call) -> HTTPResponse {
        var headers = headers(now: call.now, correlationId: call.correlationId)
        headers["Content-Type"] = "text/html; charset=utf-8"
        headers["Cache-Control"] = "no-store, no-cache"
        headers["X-Content-Type-Options"] = "nosniff"
        headers["X-Frame-Options"] = "DENY"
        return HTTPResponse(statusCode: status, headers: headers, body: Data(html.utf8))
    }

    /// `uri` with `parameters` added to its query (after any it has) or, for `fragment`, as its fragment.
    static func appending(
        _ parameters: [(String, String)], to uri: String, mode: AcceptedAuthorizationRequest.ResponseMode
    ) -> String {
        guard !parameters.isEmpty else { return uri }
        let encoded = parameters.map { formEscape($0.0) + "=" + formEscape($0.1) }.joined(separator: "&")
        switch mode {
        case .fragment:
            return uri + "#" + encoded
        case .query:
            return uri + (uri.contains("?") ? "&" : "?") + encoded
        }
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    static func formEscape(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            let unreserved =
                (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || "-._~".utf8.contains(byte)
            if unreserved {
                output.unicodeScalars.append(scalar)
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                output += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return output
    }
}
