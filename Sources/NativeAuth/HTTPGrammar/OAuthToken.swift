/// The syntax of an OAuth scope token (RFC 6749 §3.3, Appendix A.4): one or more of
/// `%x21 / %x23-5B / %x5D-7E`, printable ASCII without a space, `"` or `\`. Scopes are checked
/// with it, and so are the `acr_values` of a step-up, which travel the same ways (a query, a form,
/// a header's quoted string).
enum OAuthToken {
    static func isValid(_ text: String) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy { scalar in
                (0x21...0x7E).contains(scalar.value) && scalar != "\"" && scalar != "\\"
            }
    }
}
