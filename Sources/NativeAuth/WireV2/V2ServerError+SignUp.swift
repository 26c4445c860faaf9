import Foundation

/// One entry of `error.innerError.details` in a V2 error answer: a `code` and the `attributeIds`
/// it is about ([Android], as its review thread in PR 3240 reads them; Docs/NativeAuthV2.md,
/// "Sign-up"). Server text is cut as every other server text is.
struct V2ErrorDetail: Sendable, Equatable {
    static let maximumCount = 16
    static let maximumAttributes = 64

    let code: String?
    let attributeIds: [String]

    init?(_ value: JSONValue) {
        guard let members = value.objectValue else { return nil }
        let object = WireObject(members)
        code = object.string("code").map(ServerError.capped).flatMap { $0.isEmpty ? nil : $0 }
        attributeIds = (object.array("attributeIds") ?? []).prefix(Self.maximumAttributes).compactMap {
            $0.stringValue.flatMap { $0.isEmpty || $0.utf8.count > 256 ? nil : $0 }
        }
        guard code != nil || !attributeIds.isEmpty else { return nil }
    }

    /// The details of an `innerError` object, at most ``maximumCount`` of them.
    static func list(_ innerError: WireObject?) -> [V2ErrorDetail] {
        (innerError?.array("details") ?? []).prefix(maximumCount).compactMap(V2ErrorDetail.init)
    }

    func names(_ name: String) -> Bool { code.map(V2ServerError.folded) == V2ServerError.folded(name) }
}

extension V2ServerError {
    /// A user with this username exists: `userAlreadyExists` as `error.code`, `innerError.code` or
    /// a detail's `code` ([Android] PR 3240).
    var isUserAlreadyExists: Bool { names("userAlreadyExists") || details.contains { $0.names("userAlreadyExists") } }

    /// The attributes the details name as refused, in order and once each; a detail that says the
    /// user exists names no refused value.
    var invalidAttributeIds: [String] {
        var seen = Set<String>()
        return details.filter { !$0.names("userAlreadyExists") }.flatMap(\.attributeIds).filter {
            seen.insert($0).inserted
        }
    }

    /// What a sign-up refusal means: the user exists, a refused password (the only refused
    /// attribute is `password`: its policy code, when a detail gives one, is the violation), or
    /// refused attributes (`attributeValidationError`, [Android]). `nil` for any other error.
    var signUpKind: ErrorKind? {
        if isUserAlreadyExists { return .userAlreadyExists }
        guard names("attributeValidationError") else { return nil }
        let refused = invalidAttributeIds
        if !refused.isEmpty, refused.allSatisfy({ $0.lowercased() == "password" }) {
            let violation = details.lazy.compactMap { $0.code.flatMap { Self.passwordViolations[Self.folded($0)] } }
                .first
            return .invalidPassword(violation)
        }
        return .attributesInvalid
    }
}
