import Foundation

/// A claims request (OpenID Connect Core §5.5, sent as `claims`), checked before anything is sent.
enum ClaimsRequest {
    /// `claims` trimmed, or `nil` when there is none.
    /// - Throws: `E` with ``ErrorKind/invalidArgument`` when it is not a JSON object.
    static func validated<E: DetailedError>(_ claims: String?, correlationId: UUID, as errorType: E.Type) throws(E)
        -> String?
    {
        guard let claims = claims?.trimmingCharacters(in: .whitespacesAndNewlines), !claims.isEmpty else { return nil }
        guard let value = try? JSONValue.parse(Data(claims.utf8)), value.objectValue != nil else {
            throw E(.invalidArgument, correlationId: correlationId, note: "The claims request is not a JSON object.")
        }
        return claims
    }
}
