import Foundation

/// `state` of a HAL answer (Docs/NativeAuthV2Protocol.md, "`state` and `action`"), matched without case; a
/// value the SDK does not know is kept, as [JS] keeps it an open string.
enum V2State: Sendable, Equatable {
    case interactionRequired
    case `continue`
    case webFallbackRequired
    case unknown(String)

    init(wire: String) {
        switch wire.lowercased() {
        case "interactionrequired": self = .interactionRequired
        case "continue": self = .continue
        case "webfallbackrequired": self = .webFallbackRequired
        default: self = .unknown(ServerError.capped(wire))
        }
    }
}

/// `action` of a HAL answer. `enroll` (or `register`) and `activate` are method registration, read
/// as far as their one source goes (Docs/NativeAuthV2.md, "Registering a method (JIT)"), and
/// `riskverify` as far as MSAL's clients go ("Risk verification"); any other value is kept as
/// ``unknown(_:)``: the outcome is then ``V2Outcome/unsupportedAction(_:)``.
enum V2Action: Sendable, Equatable {
    case challenge
    case verify
    case update
    case poll
    case collectAttributes
    /// `enroll` or `register`: a method to register, each with an `enroll` (or `register`) link.
    case enroll
    /// `activate`: the code sent to the contact being registered, at the `activate` link.
    case activate
    /// `riskverify`: the server checks the phone of an SMS method before it sends the code, at the
    /// `riskverify` link (Docs/NativeAuthV2.md, "Risk verification").
    case riskVerify
    case unknown(String)

    init(wire: String) {
        switch wire.lowercased() {
        case "challenge": self = .challenge
        case "verify": self = .verify
        case "update": self = .update
        case "poll": self = .poll
        case "collectattributes": self = .collectAttributes
        case "enroll", "register": self = .enroll
        case "activate": self = .activate
        case "riskverify": self = .riskVerify
        default: self = .unknown(ServerError.capped(wire))
        }
    }

    /// The relation the action is followed by.
    var relation: String? {
        switch self {
        case .challenge: "challenge"
        case .verify: "verify"
        case .update: "update"
        case .poll: "poll"
        case .collectAttributes: "submitAttributes"
        case .enroll: "enroll"
        case .activate: "activate"
        case .riskVerify: "riskverify"
        case .unknown: nil
        }
    }
}

/// `challengeContext.authenticationFactor` (Docs/NativeAuthV2Protocol.md, "Methods, `codeLength`,
/// `challengeContext`").
enum V2AuthenticationFactor: Sendable, Equatable {
    case singleFactor
    case multiFactor
    case unknown(String)

    init(wire: String) {
        switch wire.lowercased() {
        case "singlefactor": self = .singleFactor
        case "multifactor": self = .multiFactor
        default: self = .unknown(ServerError.capped(wire))
        }
    }
}

/// HAL `_links`: relation → href, unresolved (``V2HrefResolver`` checks each before it is
/// followed).
///
/// A link is `{"href": "…"}`; a bare string is taken too (step 1's top-level links are strings).
/// A relation holding an array is taken only when the array holds exactly one link, since two
/// would leave the SDK guessing which one to send secrets to.
struct V2Links: Sendable, Equatable {
    static let maximumCount = 32

    let hrefs: [String: String]

    init(_ hrefs: [String: String] = [:]) { self.hrefs = hrefs }

    init(_ object: WireObject?) {
        var hrefs: [String: String] = [:]
        if let members = object?.members {
            for relation in members.sortedKeys.prefix(Self.maximumCount) {
                if let href = members[relation].flatMap(Self.href) { hrefs[relation] = href }
            }
        }
        self.hrefs = hrefs
    }

    /// The href of one link value.
    static func href(_ value: JSONValue) -> String? {
        switch value {
        case .string(let href): return href
        case .object(let link): return link["href"]?.stringValue
        case .array(let links) where links.count == 1: return links[0]["href"]?.stringValue
        default: return nil
        }
    }

    subscript(relation: String) -> String? { hrefs[relation] }

    var isEmpty: Bool { hrefs.isEmpty }
}

/// A method under `_embedded.methods`.
/// A class: it never changes once read, and its fields are shared rather than copied.
final class V2Method: Sendable, Equatable {
    /// Opaque: never parsed (Docs/NativeAuthV2Protocol.md, "Methods, `codeLength`, `challengeContext`").
    let id: String
    let type: String?
    let hint: String?
    let links: V2Links

    init?(_ value: JSONValue) {
        guard let members = value.objectValue else { return nil }
        let object = WireObject(members)
        guard let id = object.string("id"), !id.isEmpty, id.utf8.count <= 256 else { return nil }
        self.id = id
        type = object.text("type")
        hint = object.text("hint")
        links = V2Links(object.object("_links"))
    }

    static func == (lhs: V2Method, rhs: V2Method) -> Bool {
        lhs.id == rhs.id && lhs.type == rhs.type && lhs.hint == rhs.hint && lhs.links == rhs.links
    }
}

/// An attribute descriptor of a `collectAttributes` answer (Docs/NativeAuthV2Protocol.md, "Attributes
/// (sign-up)"): [Attrs]' `attributeId` and `inputType`, or [iOS]' `id` and `type`, either taken.
/// A class: it never changes once read, and its fields are shared rather than copied.
final class V2AttributeDescriptor: Sendable, Equatable {
    let id: String
    let inputType: String?
    let required: Bool
    let hidden: Bool
    let canChange: Bool?
    let validationRegex: String?

    init?(_ value: JSONValue) {
        guard let members = value.objectValue else { return nil }
        let object = WireObject(members)
        guard let id = object.string("attributeId") ?? object.string("id"), !id.isEmpty, id.utf8.count <= 256
        else { return nil }
        self.id = id
        inputType = object.text("inputType", or: "type")
        required = object.bool("required") ?? false
        hidden = object.bool("hidden") ?? false
        canChange = object.bool("canChange")
        validationRegex = (object.string("validationRegex") ?? object.string("regex")).flatMap {
            $0.utf8.count <= 1_024 ? $0 : nil
        }
    }

    static func == (lhs: V2AttributeDescriptor, rhs: V2AttributeDescriptor) -> Bool {
        lhs.id == rhs.id && lhs.inputType == rhs.inputType && lhs.required == rhs.required
            && lhs.hidden == rhs.hidden && lhs.canChange == rhs.canChange && lhs.validationRegex == rhs.validationRegex
    }
}

/// A HAL answer (Docs/NativeAuthV2Protocol.md, "Interaction answers"), every member read leniently: a
/// member of the wrong type reads as missing.
/// A class: built once from the answer and never changed, it is shared rather than copied.
final class V2Envelope: Sendable {
    static let maximumMethods = 32
    static let maximumAttributes = 64

    let state: V2State?
    let action: V2Action?
    let continuationToken: Secret?
    let links: V2Links
    let methods: [V2Method]
    /// The method in play, at the top level of a challenge or verify answer.
    let methodId: String?
    let methodType: String?
    let hint: String?
    /// `codeLength` at the top level, else `payload.codeLength`; kept only within 1…64.
    let codeLength: Int?
    let authenticationFactor: V2AuthenticationFactor?
    let attributes: [V2AttributeDescriptor]
    /// `pollInterval` in milliseconds ([Android] only), kept within 100…60,000.
    let pollInterval: Int?

    init(_ object: WireObject) {
        state = object.string("state").map(V2State.init(wire:))
        action = object.string("action").map(V2Action.init(wire:))
        continuationToken = object.token()
        links = V2Links(object.object("_links"))
        methods = (object.object("_embedded")?.array("methods") ?? []).prefix(Self.maximumMethods).compactMap(
            V2Method.init)
        methodId = object.string("id").flatMap { $0.isEmpty || $0.utf8.count > 256 ? nil : $0 }
        methodType = object.text("type")
        hint = object.text("hint")
        codeLength = (object.int("codeLength") ?? object.object("payload")?.int("codeLength")).flatMap {
            (1...64).contains($0) ? $0 : nil
        }
        authenticationFactor = object.object("challengeContext")?.string("authenticationFactor").map(
            V2AuthenticationFactor.init(wire:))
        attributes = (object.array("attributes") ?? []).prefix(Self.maximumAttributes).compactMap(
            V2AttributeDescriptor.init)
        pollInterval = object.int("pollInterval").map { min(max($0, 100), 60_000) }
    }

    /// The href of `relation`: the top-level link, else the one of the only method that has it
    /// (with several methods the engine picks one: ``V2Method/links``).
    func href(_ relation: String) -> String? {
        if let href = links[relation] { return href }
        let offered = methods.compactMap { $0.links[relation] }
        return offered.count == 1 ? offered[0] : nil
    }

    /// Whether `relation` is offered anywhere: at the top level or by a method.
    func offers(_ relation: String) -> Bool {
        // The source reads a method's registration link as `enroll` or `register`.
        isOffered(relation) || (relation == "enroll" && isOffered("register"))
    }

    /// Whether the link `name` is at the top level or in a method.
    private func isOffered(_ name: String) -> Bool {
        if links[name] != nil { return true }
        for method in methods where method.links[name] != nil { return true }
        return false
    }
}
