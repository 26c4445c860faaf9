/// The HTML pages of the emulated tenant's browser sign-in: the sign-in form, the one-time code
/// form, and plain message pages (errors, signed out).
///
/// Every value written into a page (the username from `login_hint`, error texts, the request
/// handle, the form's action) is HTML-escaped; no password or code is ever written back. The markup
/// is small and regular so that ``EmulatedBrowser`` (and a test) can read it: one `<form>`, its
/// `<input>` fields and two `<button name="action">` buttons (`signin` and `cancel`), and the error
/// in `<p id="error">`.
enum EmulatorLoginPage {
    /// `text` with `&`, `<`, `>`, `"` and `'` replaced by character references, safe in element
    /// content and in double- or single-quoted attribute values.
    static func escape(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&#39;"
            default: output.append(character)
            }
        }
        return output
    }

    /// The username and password form. A passwordless account leaves the password empty and is
    /// sent a code.
    static func signIn(action: String, context: String, username: String, error: String?) -> String {
        form(
            title: "Sign in", action: action, context: context, error: error,
            fields: """
                <p><label for="username">Email address</label>
                <input type="email" id="username" name="username" value="\(escape(username))" autocomplete="username"></p>
                <p><label for="password">Password</label>
                <input type="password" id="password" name="password" value="" autocomplete="current-password"></p>
                <p>No password on your account? Leave it empty: a code will be sent to your email address.</p>
                """)
    }

    /// The form for a one-time code sent to `target` (a masked address).
    static func code(action: String, context: String, target: String, error: String?) -> String {
        form(
            title: "Enter code", action: action, context: context, error: error,
            fields: """
                <p>We sent a code to \(escape(target)).</p>
                <p><label for="code">Code</label>
                <input type="text" id="code" name="code" value="" inputmode="numeric" autocomplete="one-time-code"></p>
                """)
    }

    /// A page with a title and a message, and no form.
    static func message(title: String, text: String) -> String {
        document(title: title, body: "<h1>\(escape(title))</h1>\n<p id=\"message\">\(escape(text))</p>")
    }

    /// The body of a redirect, as servers write it for clients that do not follow `Location`.
    static func movedTo(_ location: String) -> String {
        document(
            title: "Object moved",
            body: "<h2>Object moved to <a href=\"\(escape(location))\">here</a>.</h2>")
    }

    private static func form(title: String, action: String, context: String, error: String?, fields: String)
        -> String
    {
        var body = "<h1>\(escape(title))</h1>\n"
        if let error { body += "<p id=\"error\" role=\"alert\">\(escape(error))</p>\n" }
        body += """
            <form id="signin" method="post" action="\(escape(action))">
            <input type="hidden" name="ctx" value="\(escape(context))">
            \(fields)
            <p><button type="submit" name="action" value="signin">Next</button>
            <button type="submit" name="action" value="cancel" formnovalidate>Cancel</button></p>
            </form>
            """
        return document(title: title, body: body)
    }

    private static func document(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title></head>
        <body>
        \(body)
        </body>
        </html>

        """
    }
}
