/// One user attribute value: a string, a whole number, a number or a Boolean.
///
/// Written as a literal: `"Oslo"`, `42`, `1.5`, `true`.
public enum UserAttributeValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, CustomStringConvertible
{
    /// A string.
    case string(String)
    /// A whole number.
    case int(Int)
    /// A number; must be finite.
    case double(Double)
    /// A Boolean.
    case bool(Bool)

    /// A string value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A whole-number value.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A number value.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A Boolean value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// The value as JSON.
    public var description: String { json?.description ?? "invalid" }

    var json: JSONValue? {
        switch self {
        case .string(let value): .string(value)
        case .int(let value): .number(Double(value))
        case .double(let value): value.isFinite ? .number(value) : nil
        case .bool(let value): .bool(value)
        }
    }
}

/// The attributes of a user signing up: the well-known ones by name, custom `extension_…` ones,
/// and any other the tenant defines. A name is ASCII letters, digits and `_`, starting with a letter.
///
/// ```swift
/// var attributes: UserAttributes = ["displayName": "Ada", "city": "Oslo"]
/// attributes.jobTitle = "Engineer"
/// attributes["extension_0123abcd_loyaltyNumber"] = 42
/// ```
public struct UserAttributes: Sendable, Hashable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// The values by attribute name.
    public private(set) var values: [String: UserAttributeValue]

    /// Creates attributes from a dictionary literal.
    public init(dictionaryLiteral elements: (String, UserAttributeValue)...) {
        values = [:]
        for (name, value) in elements { values[name] = value }
    }

    /// Creates attributes from a dictionary.
    public init(_ values: [String: UserAttributeValue] = [:]) { self.values = values }

    /// The value of attribute `name`; set `nil` to remove it.
    public subscript(name: String) -> UserAttributeValue? {
        get { values[name] }
        set { values[name] = newValue }
    }

    /// Whether no attribute is set.
    public var isEmpty: Bool { values.isEmpty }

    /// The attribute names, sorted (values are left out: they are personal data).
    public var description: String { "UserAttributes(" + values.sortedKeys.joined(separator: ", ") + ")" }

    private func string(_ name: String) -> String? {
        if case .string(let value)? = values[name] { return value }
        return nil
    }

    /// `displayName`.
    public var displayName: String? {
        get { string("displayName") }
        set { values["displayName"] = newValue.map(UserAttributeValue.string) }
    }
    /// `givenName`.
    public var givenName: String? {
        get { string("givenName") }
        set { values["givenName"] = newValue.map(UserAttributeValue.string) }
    }
    /// `surname`.
    public var surname: String? {
        get { string("surname") }
        set { values["surname"] = newValue.map(UserAttributeValue.string) }
    }
    /// `city`.
    public var city: String? {
        get { string("city") }
        set { values["city"] = newValue.map(UserAttributeValue.string) }
    }
    /// `country`.
    public var country: String? {
        get { string("country") }
        set { values["country"] = newValue.map(UserAttributeValue.string) }
    }
    /// `postalCode`.
    public var postalCode: String? {
        get { string("postalCode") }
        set { values["postalCode"] = newValue.map(UserAttributeValue.string) }
    }
    /// `state`.
    public var state: String? {
        get { string("state") }
        set { values["state"] = newValue.map(UserAttributeValue.string) }
    }
    /// `streetAddress`.
    public var streetAddress: String? {
        get { string("streetAddress") }
        set { values["streetAddress"] = newValue.map(UserAttributeValue.string) }
    }
    /// `jobTitle`.
    public var jobTitle: String? {
        get { string("jobTitle") }
        set { values["jobTitle"] = newValue.map(UserAttributeValue.string) }
    }

    /// The built-in attribute names that have typed properties.
    public static let wellKnownNames: Set<String> = [
        "displayName", "givenName", "surname", "city", "country", "postalCode", "state", "streetAddress", "jobTitle",
    ]

    /// The attributes as one JSON object for the form, or why they cannot be encoded.
    func encoded() -> Result<String, AttributeEncodingProblem> {
        jsonMembers().map { JSONValue.object($0).description }
    }

    /// The attributes as the members of a JSON object, or why they cannot be encoded.
    func jsonMembers() -> Result<[String: JSONValue], AttributeEncodingProblem> {
        var members: [String: JSONValue] = [:]
        for (name, value) in values {
            guard Self.isValidName(name) else { return .failure(.invalidName(name)) }
            guard let json = value.json else { return .failure(.invalidValue(name)) }
            if case .string(let text) = value, text.unicodeScalars.contains(where: { $0.value == 0 }) {
                return .failure(.invalidValue(name))
            }
            members[name] = json
        }
        return .success(members)
    }

    static func isValidName(_ name: String) -> Bool {
        guard !name.isEmpty, name.count <= 256,
            name.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_")
            })
        else { return false }
        return name.first?.isLetter == true
    }

    enum AttributeEncodingProblem: Error, Equatable {
        case invalidName(String)
        case invalidValue(String)

        var note: String {
            switch self {
            case .invalidName(let name): "The attribute name '\(name.prefix(64))' is not valid; nothing was sent."
            case .invalidValue(let name):
                "The value of attribute '\(name.prefix(64))' cannot be encoded; nothing was sent."
            }
        }

        var name: String {
            switch self {
            case .invalidName(let name), .invalidValue(let name): name
            }
        }
    }
}

/// An attribute the tenant requires at sign-up.
///
/// Its fields live in one immutable instance it shares: a copy is one reference.
public struct RequiredAttribute: Sendable, Hashable, CustomStringConvertible {
    private final class Fields: Sendable {
        let name: String
        let type: String
        let isRequired: Bool
        let regex: String?

        init(name: String, type: String, isRequired: Bool, regex: String?) {
            self.name = name
            self.type = type
            self.isRequired = isRequired
            self.regex = regex
        }
    }

    private let fields: Fields

    /// The attribute's name, such as `city`.
    public var name: String { fields.name }
    /// Its type, such as `string`.
    public var type: String { fields.type }
    /// Whether a value must be given.
    public var isRequired: Bool { fields.isRequired }
    /// The pattern a value must match, when the tenant set one.
    public var regex: String? { fields.regex }

    init(_ wire: WireRequiredAttribute) {
        self.init(name: wire.name, type: wire.type ?? "string", isRequired: wire.required, regex: wire.regex)
    }

    /// Creates a required attribute (for tests and previews).
    public init(name: String, type: String = "string", isRequired: Bool = true, regex: String? = nil) {
        fields = Fields(name: name, type: type, isRequired: isRequired, regex: regex)
    }

    /// Equal when every field is.
    public static func == (lhs: RequiredAttribute, rhs: RequiredAttribute) -> Bool {
        lhs.name == rhs.name && lhs.type == rhs.type && lhs.isRequired == rhs.isRequired && lhs.regex == rhs.regex
    }

    /// Hashes every field, in the order they are declared.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(type)
        hasher.combine(isRequired)
        hasher.combine(regex)
    }

    /// Name, type, and whether it is required.
    public var description: String { "RequiredAttribute(\(name), \(type)\(isRequired ? ", required" : ""))" }
}
