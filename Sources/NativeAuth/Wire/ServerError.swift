import Foundation

/// A documented error answer of the API (Docs/Protocol.md, "Error answers"), decoded leniently:
/// every field but `error` may be missing, and unknown values are kept as they came.
///
/// A class: built once and only read, it is passed around in many errors and outcomes, which then
/// copy one reference instead of its many fields.
final class ServerError: Sendable, Equatable {
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
    /// What each refused value was, and which attributes it names: V2's `innerError.details`
    /// (Docs/NativeAuthV2Protocol.md, "Sign-up"); V1 answers have none.
    let details: [ServerErrorDetail]

    /// The most characters of server text (`error`, `error_description`, ...) kept: enough for
    /// every documented answer, short enough that a hostile server cannot flood errors and logs.
    static let maximumTextLength = 400
    static let maximumCodes = 16
    static let maximumClaimsLength = 16 * 1024

    /// Server text cut to ``maximumTextLength`` characters.
    @inline(never)
    static func capped(_ text: String) -> String {
        text.count <= maximumTextLength ? text : String(text.prefix(maximumTextLength)) + "…"
    }

    /// Decodes an error body; `nil` when `object` has no string `error`.
    init?(status: Int, object: WireObject) {
        guard let error = object.text("error", nonEmpty: true) else { return nil }
        self.status = status
        self.error = error
        suberror = object.text("suberror", nonEmpty: true)
        errorCodes = Array(object.intList("error_codes").prefix(Self.maximumCodes))
        firstCode = object.firstListedInt("error_codes")
        errorDescription = object.text("error_description")
        errorURI = object.text("error_uri")
        traceId = object.text("trace_id")
        correlationId = object.text("correlation_id")
        timestamp = object.text("timestamp")
        claims = object.string("claims").flatMap { $0.isEmpty || $0.utf8.count > Self.maximumClaimsLength ? nil : $0 }
        continuationToken = object.string("continuation_token").flatMap { $0.isEmpty ? nil : Secret($0) }
        requiredAttributes = (object.array("required_attributes") ?? []).compactMap(WireRequiredAttribute.init)
        invalidAttributes = object.attributeNames("invalid_attributes")
        unverifiedAttributes = object.attributeNames("unverified_attributes")
        details = []
    }

    /// An error read from another shape of answer (V2's, ``init(v2Status:object:)``): the same
    /// value, member by member; text is expected capped already. Called, not inlined, by both of
    /// V2's shapes.
    @inline(never)
    init(
        status: Int, error: String, suberror: String?, errorCodes: [Int], firstCode: Int?, errorDescription: String?,
        traceId: String?, correlationId: String?, timestamp: String?, continuationToken: Secret?,
        details: [ServerErrorDetail] = []
    ) {
        self.status = status
        self.error = error
        self.suberror = suberror
        self.errorCodes = errorCodes
        self.firstCode = firstCode
        self.errorDescription = errorDescription
        self.traceId = traceId
        self.correlationId = correlationId
        self.timestamp = timestamp
        self.continuationToken = continuationToken
        self.details = details
        errorURI = nil
        claims = nil
        requiredAttributes = []
        unverifiedAttributes = []
        // The attributes the details name as refused, in order and once each; a detail that says
        // the user exists names no refused value.
        var seen = Set<String>()
        invalidAttributes = details.filter { !$0.names("userAlreadyExists") }.flatMap(\.attributeIds).filter {
            seen.insert($0).inserted
        }
    }

    static func == (lhs: ServerError, rhs: ServerError) -> Bool {
        lhs === rhs
            || (lhs.status == rhs.status && lhs.error == rhs.error && lhs.suberror == rhs.suberror
                && lhs.errorCodes == rhs.errorCodes && lhs.firstCode == rhs.firstCode
                && lhs.errorDescription == rhs.errorDescription && lhs.errorURI == rhs.errorURI
                && lhs.traceId == rhs.traceId && lhs.correlationId == rhs.correlationId
                && lhs.timestamp == rhs.timestamp && lhs.continuationToken == rhs.continuationToken
                && lhs.requiredAttributes == rhs.requiredAttributes && lhs.invalidAttributes == rhs.invalidAttributes
                && lhs.unverifiedAttributes == rhs.unverifiedAttributes && lhs.claims == rhs.claims
                && lhs.details == rhs.details)
    }

    /// Whether `error` or `suberror` is `name`, in V2's camelCase spelling or V1's snake_case one
    /// (MSAL for Android accepts both): compared without case and underscores.
    func namesFolded(_ name: String) -> Bool {
        [error, suberror].contains { $0.map(Self.folded) == Self.folded(name) }
    }

    static func folded(_ text: String) -> String {
        String(text.lowercased().unicodeScalars.filter { $0 != "_" })
    }
}

/// One entry of V2's `error.innerError.details`: a `code` and the `attributeIds` it is about
/// (MSAL for Android, as its review thread in PR 3240 reads them; Docs/NativeAuthV2Protocol.md, "Sign-up").
/// Server text is cut as every other server text is.
struct ServerErrorDetail: Sendable, Equatable {
    static let maximumCount = 16
    static let maximumAttributes = 64

    let code: String?
    let attributeIds: [String]

    init?(_ value: JSONValue) {
        guard let members = value.objectValue else { return nil }
        let object = WireObject(members)
        code = object.text("code", nonEmpty: true)
        attributeIds = (object.array("attributeIds") ?? []).prefix(Self.maximumAttributes).compactMap {
            $0.stringValue.flatMap { $0.isEmpty || $0.utf8.count > 256 ? nil : $0 }
        }
        guard code != nil || !attributeIds.isEmpty else { return nil }
    }

    /// The details of an `innerError` object, at most ``maximumCount`` of them.
    static func list(_ innerError: WireObject?) -> [ServerErrorDetail] {
        (innerError?.array("details") ?? []).prefix(maximumCount).compactMap(ServerErrorDetail.init)
    }

    func names(_ name: String) -> Bool { code.map(ServerError.folded) == ServerError.folded(name) }
}

extension WireObject {
    /// The server text at `key` (or, when it is missing, at `alternative`), cut to
    /// ``ServerError/maximumTextLength`` characters; `nil` when missing, or when empty and
    /// `nonEmpty`. Called, not inlined: every field of an error answer is read through it.
    @inline(never)
    func text(_ key: String, or alternative: String? = nil, nonEmpty: Bool = false) -> String? {
        guard let text = string(key) ?? alternative.flatMap(string), !(nonEmpty && text.isEmpty) else { return nil }
        return ServerError.capped(text)
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
