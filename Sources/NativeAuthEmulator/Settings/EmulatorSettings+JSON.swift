import Foundation

/// Why a change of ``EmulatorSettings`` given as JSON was refused: the setting it names and what
/// was wrong. Nothing is changed when any setting of the change is refused.
public struct EmulatorSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, naming the setting.
    public let message: String

    /// The message.
    public var description: String { message }
}

extension EmulatorSettings {
    /// Changes the settings `json` names: a JSON object of setting names (each property's Swift
    /// name, as `GET /emulator/v1/settings` lists them) and values (numbers for counts and
    /// seconds, `true`/`false`, an enum's case name as a string, arrays of strings, and for
    /// `requiredSignUpAttributes` an array of `{"name","type","required","regex"}` objects).
    /// Settings it does not name keep their values. What `nativeauth serve --setting` and the
    /// control API's `PATCH /settings` apply.
    ///
    /// - Throws: ``EmulatorSettingsError`` for text that is not a JSON object, an unknown name, a
    ///   value of the wrong type or out of range; nothing is changed then.
    public mutating func apply(json: String) throws(EmulatorSettingsError) {
        let value: JSON
        do throws(JSONParser.Failure) {
            value = try JSONParser.parse(json)
        } catch {
            throw EmulatorSettingsError(message: "The settings are not JSON (error at byte \(error.offset)).")
        }
        guard case .object(let object) = value else {
            throw EmulatorSettingsError(message: "The settings are not a JSON object.")
        }
        try apply(object)
    }

    /// Changes the settings `changes` names, all or none.
    mutating func apply(_ changes: JSONObject) throws(EmulatorSettingsError) {
        var changed = self
        for (name, value) in changes.pairs {
            guard let setter = Self.setters[name] else {
                throw EmulatorSettingsError(
                    message: "There is no setting \(name); GET /emulator/v1/settings lists every one.")
            }
            try setter(name, value, &changed)
        }
        self = changed
    }

    typealias Setter = @Sendable (String, JSON, inout EmulatorSettings) throws(EmulatorSettingsError) -> Void

    /// One setter per property, under the name `GET /emulator/v1/settings` shows it by.
    static let setters: [String: Setter] = [
        "codeLength": int(\.codeLength, 4...16),
        "continuationTokenLifetime": seconds(\.continuationTokenLifetime),
        "accessTokenLifetime": seconds(\.accessTokenLifetime),
        "refreshTokenLifetime": seconds(\.refreshTokenLifetime),
        "rotateRefreshTokens": bool(\.rotateRefreshTokens),
        "revokeRotatedRefreshTokens": bool(\.revokeRotatedRefreshTokens),
        "requiredSignUpAttributes": attributes,
        "signUpEnabled": bool(\.signUpEnabled),
        "signUpCollectsPassword": bool(\.signUpCollectsPassword),
        "passwordMinLength": int(\.passwordMinLength, 1...1_024),
        "passwordMaxLength": int(\.passwordMaxLength, 1...1_024),
        "bannedPasswords": strings { $0.bannedPasswords = Set($1) },
        "resetPollsBeforeCompletion": int(\.resetPollsBeforeCompletion, 0...1_000),
        "resetPollInterval": int(\.resetPollInterval, 0...3_600),
        "resetJobOutcome": choice(\.resetJobOutcome),
        "mfaRequiredForAll": bool(\.mfaRequiredForAll),
        "blockedMethodIds": strings { $0.blockedMethodIds = Set($1) },
        "serverClockOffset": seconds(\.serverClockOffset, -maximumSeconds...maximumSeconds),
        "includeOptionalFields": bool(\.includeOptionalFields),
        "latency": seconds(\.latency, 0...60),
        "redirectURIs": strings { $0.redirectURIs = $1 },
        "authorizationCodeLifetime": seconds(\.authorizationCodeLifetime),
        "pushedAuthorizationRequests": choice(\.pushedAuthorizationRequests),
        "pushedAuthorizationRequestLifetime": seconds(\.pushedAuthorizationRequestLifetime),
        "dpop": choice(\.dpop),
        "dpopNonces": bool(\.dpopNonces),
        "dpopNonceLifetime": seconds(\.dpopNonceLifetime, 1...maximumSeconds),
        "dpopProofLifetime": seconds(\.dpopProofLifetime),
        "clientAssertionKey": jwk,
        "authorizationChallengeEndpoint": bool(\.authorizationChallengeEndpoint),
        "discoveryDocuments": choice(\.discoveryDocuments),
        "authorizationChallengeIdentifierFirst": bool(\.authorizationChallengeIdentifierFirst),
        "nativeAuthV2": bool(\.nativeAuthV2),
        "nativeAuthV2FirstFactorChoice": bool(\.nativeAuthV2FirstFactorChoice),
        "nativeAuthV2PasswordRecovery": bool(\.nativeAuthV2PasswordRecovery),
        "nativeAuthV2RecoveryMethods": choice(\.nativeAuthV2RecoveryMethods),
        "nativeAuthV2SMSRiskVerification": bool(\.nativeAuthV2SMSRiskVerification),
        "nativeAuthV2SignUpPasswordBeforeCode": bool(\.nativeAuthV2SignUpPasswordBeforeCode),
        "nativeAuthV2SignUpAsksAgain": bool(\.nativeAuthV2SignUpAsksAgain),
        "nativeAuthV2ChallengeWithoutFactor": bool(\.nativeAuthV2ChallengeWithoutFactor),
        "nativeAuthV2DraftCodeName": bool(\.nativeAuthV2DraftCodeName),
    ]

    /// A JSON Web Key's members, all strings, or `null` for none (``clientAssertionKey``).
    private static let jwk: Setter = { (name, value, settings) throws(EmulatorSettingsError) in
        switch value {
        case .null:
            settings.clientAssertionKey = nil
        case .object(let members) where !members.pairs.isEmpty:
            var key: [String: String] = [:]
            for (member, value) in members.pairs {
                guard case .string(let text) = value else {
                    throw refused(name, "a JSON Web Key whose members are strings, or null")
                }
                key[member] = text
            }
            settings.clientAssertionKey = key
        default:
            throw refused(name, "a JSON Web Key (an object of strings), or null")
        }
    }

    /// Ten years: the longest lifetime or offset taken over JSON.
    static let maximumSeconds: TimeInterval = 10 * 366 * 86_400

    private static func refused(_ name: String, _ expected: String) -> EmulatorSettingsError {
        EmulatorSettingsError(message: "The setting \(name) takes \(expected).")
    }

    private static func bool(_ path: any WritableKeyPath<EmulatorSettings, Bool> & Sendable) -> Setter {
        { name, value, settings throws(EmulatorSettingsError) in
            guard case .bool(let flag) = value else { throw refused(name, "true or false") }
            settings[keyPath: path] = flag
        }
    }

    private static func int(_ path: any WritableKeyPath<EmulatorSettings, Int> & Sendable, _ range: ClosedRange<Int>)
        -> Setter
    {
        { name, value, settings throws(EmulatorSettingsError) in
            guard case .integer(let number) = value, range.contains(number) else {
                throw refused(name, "a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            settings[keyPath: path] = number
        }
    }

    private static func seconds(
        _ path: any WritableKeyPath<EmulatorSettings, TimeInterval> & Sendable,
        _ range: ClosedRange<TimeInterval> = 0...maximumSeconds
    ) -> Setter {
        { name, value, settings throws(EmulatorSettingsError) in
            let number: Double? =
                switch value {
                case .integer(let whole): Double(whole)
                case .double(let fraction): fraction
                default: nil
                }
            guard let number, number.isFinite, range.contains(number) else {
                throw refused(name, "a number of seconds from \(range.lowerBound) to \(range.upperBound)")
            }
            settings[keyPath: path] = number
        }
    }

    private static func choice<Choice: RawRepresentable & CaseIterable & SendableMetatype>(
        _ path: any WritableKeyPath<EmulatorSettings, Choice> & Sendable
    ) -> Setter where Choice.RawValue == String {
        { name, value, settings throws(EmulatorSettingsError) in
            guard case .string(let text) = value, let choice = Choice(rawValue: text) else {
                throw refused(name, "one of " + Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
            }
            settings[keyPath: path] = choice
        }
    }

    private static func strings(_ set: @escaping @Sendable (inout EmulatorSettings, [String]) -> Void) -> Setter {
        { name, value, settings throws(EmulatorSettingsError) in
            guard case .array(let items) = value, items.count <= 1_000 else {
                throw refused(name, "an array of at most 1,000 strings")
            }
            var list: [String] = []
            for item in items {
                guard case .string(let text) = item else { throw refused(name, "an array of strings") }
                list.append(text)
            }
            set(&settings, list)
        }
    }

    private static let attributes: Setter = { name, value, settings throws(EmulatorSettingsError) in
        let expected = #"an array of at most 100 {"name","type","required","regex"} objects with a name"#
        guard case .array(let items) = value, items.count <= 100 else { throw refused(name, expected) }
        var list: [EmulatedRequiredAttribute] = []
        for item in items {
            guard case .object(let fields) = item, case .string(let attribute)? = fields["name"], !attribute.isEmpty
            else { throw refused(name, expected) }
            var parsed = EmulatedRequiredAttribute(name: attribute)
            switch fields["type"] {
            case nil: break
            case .string(let type)?: parsed.type = type
            default: throw refused(name, expected)
            }
            switch fields["required"] {
            case nil: break
            case .bool(let required)?: parsed.required = required
            default: throw refused(name, expected)
            }
            switch fields["regex"] {
            case nil, .null?: break
            case .string(let regex)? where (try? NSRegularExpression(pattern: regex)) != nil: parsed.regex = regex
            default: throw refused(name, expected + " (a regex that compiles)")
            }
            list.append(parsed)
        }
        settings.requiredSignUpAttributes = list
    }
}
