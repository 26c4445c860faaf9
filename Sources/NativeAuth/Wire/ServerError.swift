import Foundation

/// A documented error answer of the API (Docs/Protocol.md, "Error answers"), decoded leniently:
/// every field but `error` may be missing, and unknown values are kept as they came.
struct ServerError: Sendable, Equatable {
    let status: Int
    let error: String
    let suberror: String?
    /// The representable codes of `error_codes`, in order; an entry that is not a representable
    /// integer is left out.
    let errorCodes: [Int]
    /// The first entry of `error_codes`, the only one the SDK classifies by; `nil` when there is
    /// none or it is not a representable integer (it is then an unknown code, and the second entry
    /// is never read in its place).
    let firstCode: Int?
    let errorDescription: String?
    let errorURI: String?
    let traceId: String?
    let correlationId: String?
    let timestamp: String?
    let continuationToken: Secret?
    let requiredAttributes: [WireRequiredAttribute]
    let invalidAttributes: [String]
    let unverifiedAttributes: [String]
    /// A claims challenge (`claims`, the OIDC claims-request JSON) the server asks the next token
    /// request to carry.
    let claims: String?

    /// The most characters of server text (`error`, `error_description`, ...) kept: enough for
    /// every documented answer, short enough that a hostile server cannot flood errors and logs.
    static let maximumTextLength = 400
    static let maximumCodes = 16
    static let maximumClaimsLength = 16 * 1024

    /// Server text cut to ``maximumTextLength`` characters.
    static func capped(_ text: String) -> String {
        text.count <= maximumTextLength ? text : String(text.prefix(maximumTextLength)) + "…"
    }

    /// Decodes an error body; `nil` when `object` has no string `error`.
    init?(status: Int, object: WireObject) {
        guard let error = object.string("error").map(Self.capped), !error.isEmpty else { return nil }
        self.status = status
        self.error = error
        suberror = object.string("suberror").map(Self.capped).flatMap { $0.isEmpty ? nil : $0 }
        errorCodes = Array(object.intList("error_codes").prefix(Self.maximumCodes))
        firstCode = object.firstListedInt("error_codes")
        errorDescription = object.string("error_description").map(Self.capped)
        errorURI = object.string("error_uri").map(Self.capped)
        traceId = object.string("trace_id").map(Self.capped)
        correlationId = object.string("correlation_id").map(Self.capped)
        timestamp = object.string("timestamp").map(Self.capped)
        claims = object.string("claims").flatMap { $0.isEmpty || $0.utf8.count > Self.maximumClaimsLength ? nil : $0 }
        continuationToken = object.string("continuation_token").flatMap { $0.isEmpty ? nil : Secret($0) }
        requiredAttributes = (object.array("required_attributes") ?? []).compactMap(WireRequiredAttribute.init)
        invalidAttributes = object.attributeNames("invalid_attributes")
        unverifiedAttributes = object.attributeNames("unverified_attributes")
    }
}

/// A required user attribute, as the server describes it.
struct WireRequiredAttribute: Sendable, Equatable {
    let name: String
    let type: String?
    let required: Bool
    let regex: String?

    init?(_ value: JSONValue) {
        guard let object = value.objectValue.map(WireObject.init), let name = object.string("name"), !name.isEmpty
        else { return nil }
        self.name = ServerError.capped(name)
        type = object.string("type")
        required = object.bool("required") ?? true
        regex = object.object("options")?.string("regex")
    }
}
