#if canImport(LoopbackHTTP)
    /// The small HTML pages a ``LoopbackUserAgent`` shows in the browser once the callback arrived.
    ///
    /// The texts are plain text: they are HTML-escaped when the page is written. The failure page also
    /// shows the provider's `error` code and `error_description`, escaped and shortened. The pages load
    /// nothing (no scripts, images or styles from elsewhere) and send no referrer, so the callback's
    /// query never leaves the browser.
    public struct LoopbackCallbackPages: Sendable, Equatable {
        /// The title and heading shown when the callback carries no `error`.
        public var successTitle: String
        /// The sentence under the success heading.
        public var successMessage: String
        /// The title and heading shown when the callback carries an `error`.
        public var failureTitle: String
        /// The sentence under the failure heading.
        public var failureMessage: String

        /// Creates the pages; every argument has an English default.
        public init(
            successTitle: String = "Signed in",
            successMessage: String = "You can close this window and return to the app.",
            failureTitle: String = "Sign-in did not complete",
            failureMessage: String = "Return to the app to try again."
        ) {
            self.successTitle = successTitle
            self.successMessage = successMessage
            self.failureTitle = failureTitle
            self.failureMessage = failureMessage
        }

        /// The page for a callback whose query holds `error` (and maybe `errorDescription`), or the
        /// success page when `error` is `nil`.
        func html(error: String?, errorDescription: String?) -> String {
            guard let error else { return Self.page(title: successTitle, message: successMessage, detail: nil) }
            var detail = Self.shortened(error, to: 100)
            if let errorDescription, !errorDescription.isEmpty {
                detail += ": " + Self.shortened(errorDescription, to: 400)
            }
            return Self.page(title: failureTitle, message: failureMessage, detail: detail)
        }

        private static func page(title: String, message: String, detail: String?) -> String {
            let detailLine = detail.map { "<p><code>\(escaped($0))</code></p>\n" } ?? ""
            return """
                <!DOCTYPE html>
                <html><head><meta charset="utf-8"><title>\(escaped(title))</title>
                <style>body{font-family:system-ui,sans-serif;max-width:36em;margin:4em auto;padding:0 1em}</style>
                </head><body>
                <h1>\(escaped(title))</h1>
                <p>\(escaped(message))</p>
                \(detailLine)</body></html>

                """
        }

        /// `text` with the five HTML-special characters replaced by character references.
        static func escaped(_ text: String) -> String {
            var result = ""
            result.reserveCapacity(text.utf8.count)
            for character in text {
                switch character {
                case "&": result += "&amp;"
                case "<": result += "&lt;"
                case ">": result += "&gt;"
                case "\"": result += "&quot;"
                case "'": result += "&#39;"
                default: result.append(character)
                }
            }
            return result
        }

        private static func shortened(_ text: String, to limit: Int) -> String {
            text.count <= limit ? text : String(text.prefix(limit)) + "…"
        }
    }
#endif
