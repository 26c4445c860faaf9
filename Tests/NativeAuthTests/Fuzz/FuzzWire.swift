import Foundation
import NativeAuthTestSupport

@testable import NativeAuth

// Bodies of every endpoint (Docs/Protocol.md), the responses around them, and the mutations.

extension Gen {
    // MARK: Fields

    /// A member named `name`, sometimes with a wrong-typed value, a padded key, or twice.
    mutating func field(_ name: String, _ value: FuzzJSON) -> [FuzzJSON.Member] {
        var key = FuzzText(name)
        if rng.chance(0.03) {
            // A published sample has "challenge_target_label " with a trailing space.
            key = FuzzText(rng.pick([name + " ", " " + name, name + "\t", name + "  ", name + "\n"]))
        }
        let chosen = rng.chance(wrongTypeRate) ? wrongValue(for: value) : value
        var members = [FuzzJSON.Member(key: key, value: chosen)]
        if rng.chance(0.02) {
            // A duplicated key: the first value wins.
            let other = FuzzJSON.Member(key: FuzzText(name), value: wrongValue(for: value))
            if rng.chance(0.5) { members.append(other) } else { members.insert(other, at: 0) }
        } else if rng.chance(0.01) {
            // Two padded variants and no exact key: which one counts must not depend on the run.
            let pads = [" ", "  ", "\t", "\n", " \t"].shuffled(using: &rng)
            members = [
                FuzzJSON.Member(key: FuzzText(name + pads[0]), value: chosen),
                FuzzJSON.Member(key: FuzzText(pads[1] + name), value: wrongValue(for: value)),
            ]
        }
        return members
    }

    /// `field` with probability `p`.
    mutating func optionalField(_ p: Double, _ name: String, _ value: FuzzJSON) -> [FuzzJSON.Member] {
        rng.chance(p) ? field(name, value) : []
    }

    /// Members no version of the API sends.
    mutating func unknownFields() -> [FuzzJSON.Member] {
        guard rng.chance(0.2) else { return [] }
        return (0..<rng.int(1...3)).map { _ in
            FuzzJSON.Member(
                key: FuzzText(rng.pick(["x_future", "extra", "", " ", "\u{0}", "tenant", "nonce", "error_uri"])),
                value: value(depth: 2))
        }
    }

    mutating func object(_ groups: [[FuzzJSON.Member]]) -> FuzzJSON {
        var members = groups.flatMap { $0 } + unknownFields()
        if rng.chance(0.1) { members.shuffle(using: &rng) }
        return .object(members)
    }

    mutating func continuationToken() -> FuzzJSON {
        rng.chance(0.97) ? .str(marker("CT")) : .str(rng.pick(["", " "]))
    }

    // MARK: Success bodies

    /// A 200 body of `endpoint`.
    mutating func successBody(_ endpoint: Endpoint) -> FuzzJSON {
        switch endpoint {
        case .signUpStart, .signInInitiate, .signUpContinue, .registerContinue, .resetPasswordStart,
            .resetPasswordContinue:
            return object([
                optionalField(0.96, "continuation_token", continuationToken()),
                optionalField(0.4, "expires_in", rng.chance(0.8) ? .int(rng.int(0...600)) : number()),
            ])
        case .signUpChallenge, .resetPasswordChallenge:
            return challengeBody(weights: [80, 8, 2, 5, 5])
        case .signInChallenge:
            return challengeBody(weights: [55, 35, 2, 4, 4])
        case .registerChallenge:
            return challengeBody(weights: [60, 5, 27, 4, 4])
        case .signInIntrospect, .registerIntrospect:
            return introspectBody()
        case .token:
            return tokenBody()
        case .resetPasswordSubmit:
            return object([
                optionalField(0.96, "continuation_token", continuationToken()),
                optionalField(
                    0.8, "poll_interval",
                    rng.chance(0.7)
                        ? .int(rng.int(0...5)) : .number(rng.pick(["1e308", "-1", "3600", "0.5", "-1e400"]))),
            ])
        case .resetPasswordPollCompletion:
            let status = rng.pick([
                "succeeded", "succeeded", "in_progress", "in_progress", "not_started", "failed", "SUCCEEDED", "Failed",
                "done", "", "succeeded ",
            ])
            return object([
                optionalField(0.95, "status", .str(status)),
                optionalField(0.85, "continuation_token", continuationToken()),
            ])
        }
    }

    /// A challenge answer; `weights` are those of oob, password, preverified, an unknown type, no type.
    mutating func challengeBody(weights: [Int]) -> FuzzJSON {
        let kind = rng.weighted(weights)
        let type: String
        switch kind {
        case 0: type = rng.pick(["oob", "oob", "OOB", "Oob"])
        case 1: type = rng.pick(["password", "Password"])
        case 2: type = "preverified"
        case 3: type = rng.pick(["telepathy", "", "sms", "otp", "oob password", "redirect "])
        default: type = ""
        }
        var groups = [
            optionalField(0.96, "continuation_token", continuationToken()),
            kind == 4 ? [] : field("challenge_type", .str(type)),
        ]
        if kind == 0 || rng.chance(0.1) {
            groups += [
                optionalField(0.8, "binding_method", .str("prompt")),
                optionalField(0.9, "challenge_channel", .str(rng.pick(["email", "sms", "EMAIL", "voice", ""]))),
                optionalField(
                    0.9, rng.chance(0.8) ? "challenge_target_label" : "challenge_target",
                    .str(rng.pick(["c***r@co**o.com", "+1******89", "", "é***@ü.com"]))),
                optionalField(0.8, "code_length", rng.chance(0.8) ? .int(rng.pick([6, 8, 0, -1, 64, 65])) : number()),
                optionalField(0.5, "interval", rng.chance(0.8) ? .int(rng.int(0...600)) : number()),
            ]
        }
        return object(groups)
    }

    mutating func introspectBody() -> FuzzJSON {
        let methods: FuzzJSON = .array(
            (0..<rng.weighted([10, 50, 25, 15])).map { index in
                object([
                    optionalField(0.95, "id", .str(rng.pick(["email", "sms", "method-\(index)", ""]))),
                    optionalField(0.9, "challenge_type", .str(rng.pick(["oob", "password", "OOB", ""]))),
                    optionalField(0.9, "challenge_channel", .str(rng.pick(["email", "sms", "Email", "pigeon"]))),
                    optionalField(0.9, "login_hint", .str(rng.pick(["c***r@co**o.com", "+1******89", ""]))),
                ])
            })
        return object([
            optionalField(0.96, "continuation_token", continuationToken()),
            optionalField(0.95, "methods", methods),
        ])
    }

    mutating func tokenBody() -> FuzzJSON {
        let scope = rng.pick([
            "openid profile offline_access", "openid,profile", "", "api://x/read openid", " openid  profile ",
            "User.Read",
        ])
        let expiresIn: FuzzJSON =
            rng.chance(0.75)
            ? .int(rng.pick([3600, 60, 0, -5, 86400, 301, 299]))
            : rng.pick([
                .number("1e308"), .number("9223372036854775807"), .number("-1e400"), .number("8999999999999999"),
                .number("3599.5"), .str("3600"), .str(" 3600 "), .str("-1"),
            ])
        return object([
            optionalField(0.9, "token_type", .str(rng.pick(["Bearer", "bearer", "pop", ""]))),
            optionalField(0.9, "scope", .str(scope)),
            optionalField(0.85, "expires_in", expiresIn),
            optionalField(0.2, "ext_expires_in", .int(7200)),
            optionalField(0.97, "access_token", .str(accessToken())),
            optionalField(0.85, "refresh_token", .str(marker("RT"))),
            optionalField(0.85, "id_token", .str(idToken())),
            optionalField(0.6, "client_info", .str(clientInfo())),
        ])
    }

    /// A marker, sometimes with a JWT payload after it, so that `exp` can be read from it.
    mutating func accessToken() -> String {
        let secret = marker("AT")
        guard rng.chance(0.4) else { return secret }
        let exp = rng.pick(["1800003600", "1e308", "-1e308", "\"soon\"", "1799999000", "null", "1800000301.5"])
        return secret + "." + encodeBase64URL(Data("{\"exp\":\(exp)}".utf8)) + ".sig"
    }

    /// An ID token: mostly a JWT with claims of every type, sometimes garbage.
    mutating func idToken() -> String {
        switch rng.int(0..<10) {
        case 0: return jwt()
        case 1: return rng.pick(["", "not-a-jwt", "a.b", "a..c", "...", "a.!!!.c"])
        default:
            let claims = object([
                field("sub", .str("sub-\(rng.int(0...9))")), optionalField(0.8, "oid", .str("oid-\(rng.int(0...9))")),
                optionalField(0.8, "tid", .str("tenant-1")),
                optionalField(0.7, "preferred_username", .str(rng.pick(["ada@example.com", "", "é@ü.com"]))),
                optionalField(0.7, "exp", rng.chance(0.7) ? .int(1_800_003_600) : number()),
                optionalField(0.5, "iat", number()),
                optionalField(0.3, "aud", rng.chance(0.5) ? .str("client-1") : value()),
                optionalField(0.3, "roles", value()),
            ])
            return encodeBase64URL(Data("{\"alg\":\"none\"}".utf8)) + "."
                + encodeBase64URL(Data(claims.render(using: &rng).utf8)) + "." + (rng.chance(0.5) ? "" : "sig")
        }
    }

    mutating func clientInfo() -> String {
        let uid: FuzzJSON = rng.chance(0.8) ? .str("uid-\(rng.int(0...9))") : value()
        let utid: FuzzJSON = rng.chance(0.8) ? .str("utid-1") : value()
        switch rng.int(0..<6) {
        case 0: return rng.pick(["", "!!", "e30", "W10", "bnVsbA"])
        case 1: return encodeBase64URL(Data(value().render(using: &rng).utf8))
        default: return encodeBase64URL(Data(FuzzJSON.obj([("uid", uid), ("utid", utid)]).render(using: &rng).utf8))
        }
    }

    // MARK: Tokens

    /// A token-like string for `JWT.payload`: random segments, bad base64url, payloads that are not objects.
    mutating func jwt() -> String {
        func segment(_ gen: inout Gen) -> String {
            switch gen.rng.int(0..<9) {
            case 0: return ""
            case 1: return encodeBase64URL(Data(gen.rng.bytes(gen.rng.int(0...40))))
            case 2: return String((0..<gen.rng.int(1...30)).map { _ in gen.rng.pick(Array("AZaz09-_+/=.!é \n%")) })
            case 3: return encodeBase64URL(Data(gen.value().render(using: &gen.rng).utf8))
            case 4: return Data(gen.value().render(using: &gen.rng).utf8).base64EncodedString()
            case 5:
                return encodeBase64URL(Data(gen.value().render(using: &gen.rng).utf8))
                    + String(repeating: "=", count: gen.rng.int(1...3))
            default: return encodeBase64URL(Data(gen.value(depth: 3).render(using: &gen.rng).utf8))
            }
        }
        let count = rng.weighted([5, 5, 10, 70, 5, 5])
        return (0..<count).map { _ in segment(&self) }.joined(separator: ".")
    }

    // MARK: Error bodies

    struct CatalogueError {
        var error: String
        var suberror: String?
        var codes: [Int]
        /// Whether the error carries the continuation token of the next step.
        var continues = false
    }

    static let commonErrors: [CatalogueError] = [
        .init(error: "invalid_request", codes: [90100]), .init(error: "invalid_request", codes: [901007]),
        .init(error: "invalid_client", suberror: "nativeauthapi_disabled", codes: []),
        .init(error: "unauthorized_client", codes: [700016]), .init(error: "invalid_request", codes: [550022]),
        .init(error: "expired_token", codes: [552003]), .init(error: "invalid_request", codes: [55000]),
        .init(error: "invalid_request", codes: [55200]), .init(error: "invalid_request", codes: [55112]),
        .init(error: "unsupported_challenge_type", codes: []), .init(error: "server_error", codes: []),
        .init(error: "some_future_error", suberror: "future_sub", codes: [12345]),
        .init(error: "user_not_found", codes: [50034]),
        .init(error: "INVALID_GRANT", suberror: "Invalid_OOB_Value", codes: []),
        .init(error: "invalid_grant", codes: []),
        .init(error: "access_denied", suberror: "provider_blocked_by_rep", codes: [550024]),
    ]

    static func endpointErrors(_ endpoint: Endpoint) -> [CatalogueError] {
        let passwordSuberrors = [
            "password_too_weak", "password_too_short", "password_too_long", "password_recently_used", "password_banned",
            "password_is_invalid", "password_future_rule",
        ]
        switch endpoint {
        case .signUpStart, .signUpContinue:
            return passwordSuberrors.map { .init(error: "invalid_grant", suberror: $0, codes: []) } + [
                .init(error: "user_already_exists", codes: [1_003_037]),
                .init(error: "invalid_grant", suberror: "attribute_validation_failed", codes: []),
                .init(error: "attributes_required", codes: [55106], continues: true),
                .init(error: "credential_required", codes: [55103], continues: true),
                .init(error: "invalid_grant", suberror: "credential_required", codes: [55103], continues: true),
                .init(error: "verification_required", codes: []),
                .init(error: "invalid_grant", suberror: "invalid_oob_value", codes: [50181]),
            ]
        case .token:
            return [
                .init(error: "invalid_grant", codes: [50126]),
                .init(error: "invalid_grant", suberror: "invalid_oob_value", codes: [50181]),
                .init(error: "invalid_grant", suberror: "mfa_required", codes: [50076], continues: true),
                .init(error: "invalid_grant", suberror: "registration_required", codes: [], continues: true),
                .init(error: "invalid_grant", suberror: "MFA_REQUIRED", codes: [], continues: true),
                .init(error: "invalid_scope", codes: []), .init(error: "unsupported_grant_type", codes: []),
                .init(error: "invalid_grant", codes: [50142]), .init(error: "expired_token", codes: []),
            ]
        case .registerChallenge:
            return [
                .init(error: "invalid_request", codes: [901001]),
                .init(error: "access_denied", suberror: "provider_blocked_by_rep", codes: []),
            ]
        case .resetPasswordStart:
            return [.init(error: "invalid_request", codes: [500222])]
        case .resetPasswordSubmit, .resetPasswordPollCompletion:
            return passwordSuberrors.map { .init(error: "invalid_grant", suberror: $0, codes: []) }
        default:
            return []
        }
    }

    /// A 400 body of `endpoint`: a documented error or one this version does not know.
    mutating func errorBody(_ endpoint: Endpoint, continuing: Double = 0) -> FuzzJSON {
        let specific = Self.endpointErrors(endpoint)
        let leadingOn = specific.filter(\.continues)
        let entry =
            !leadingOn.isEmpty && rng.chance(continuing)
            ? rng.pick(leadingOn)
            : !specific.isEmpty && rng.chance(0.65) ? rng.pick(specific) : rng.pick(Self.commonErrors)
        let codes: FuzzJSON =
            rng.chance(0.8)
            ? .array(entry.codes.map { .int($0) })
            : rng.chance(0.5) ? .array(entry.codes.map { .str(String($0)) }) : .int(entry.codes.first ?? 0)
        let attribute = { (gen: inout Gen) -> FuzzJSON in
            gen.rng.chance(0.6)
                ? .str(gen.rng.pick(["city", "displayName", "", "extension_1_x"]))
                : gen.object([
                    gen.optionalField(0.9, "name", .str(gen.rng.pick(["city", "displayName", ""]))),
                    gen.optionalField(0.6, "type", .str("string")), gen.optionalField(0.5, "required", .bool(true)),
                    gen.optionalField(0.3, "options", .obj([("regex", .str("^[a-z]+$"))])),
                ])
        }
        var groups = [
            field("error", .str(entry.error)),
            optionalField(
                0.9, "error_description", .str("AADSTS\(entry.codes.first ?? 0): " + text(pieces: rng.int(0...3)).value)
            ),
            optionalField(0.85, "error_codes", codes),
            entry.suberror.map { field("suberror", .str($0)) } ?? optionalField(0.05, "suberror", .str("")),
            optionalField(0.6, "timestamp", .str("2026-01-01 10:00:00Z")),
            optionalField(0.6, "trace_id", .str(UUID().uuidString)),
            optionalField(0.6, "correlation_id", .str("00000000-0000-0000-0000-000000000001")),
            optionalField(entry.continues ? 0.9 : 0.3, "continuation_token", continuationToken()),
            optionalField(0.2, "error_uri", .str("https://login.microsoftonline.com/error?code=50126")),
        ]
        if entry.error == "attributes_required" || rng.chance(0.05) {
            groups.append(
                optionalField(0.9, "required_attributes", .array((0..<rng.int(0...3)).map { _ in attribute(&self) })))
        }
        if entry.suberror == "attribute_validation_failed" || rng.chance(0.05) {
            groups.append(
                optionalField(0.9, "invalid_attributes", .array((0..<rng.int(0...3)).map { _ in attribute(&self) })))
        }
        if entry.error == "verification_required" || rng.chance(0.05) {
            groups.append(
                optionalField(0.9, "unverified_attributes", .array((0..<rng.int(0...3)).map { _ in attribute(&self) })))
        }
        if rng.chance(0.1) {
            groups.append(
                field("inner_errors", .array([.obj([("error", .str("x")), ("error_description", .str("y"))])])))
        }
        return object(groups)
    }

    mutating func redirectBody() -> FuzzJSON {
        object([
            field("challenge_type", .str(rng.pick(["redirect", "redirect", "REDIRECT", "Redirect"]))),
            optionalField(
                0.8, "redirect_reason", .str(rng.pick(["MFA needs a browser", "", "é"]) + text(pieces: 1).value)),
            optionalField(0.1, "continuation_token", continuationToken()),
        ])
    }

    // MARK: Responses

    static let jsonContentTypes = [
        "application/json", "application/json; charset=utf-8", "APPLICATION/JSON", "application/json;charset=UTF-8",
        "application/problem+json", "text/json",
    ]
    static let otherContentTypes = [
        "text/html", "text/plain", "", "application/x-www-form-urlencoded", "application/json; charset=utf-16",
        "application/octet-stream", "multipart/form-data; boundary=----x", "*/*", "application/json\u{0}",
        "application/json; charset=\"ut\\\"f-8\"", String(repeating: "x", count: 5000), "😀/😀",
    ]

    /// An RFC 7231 date (ours, written without `DateFormatter`) and the instant it names.
    mutating func httpDate() -> (text: String, date: Date) {
        let seconds =
            rng.chance(0.8) ? rng.int(1_700_000_000...1_900_000_000) : rng.int(-2_208_988_800...253_402_300_799)
        return (HTTPDateText.format(seconds), Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    mutating func malformedDate() -> String {
        let valid = httpDate().text
        switch rng.int(0..<6) {
        case 0:
            return rng.pick([
                "", "yesterday", "0", "Sun, 31 Feb 2023 25:61:61 GMT", "Mon, 01 Jan 0000 00:00:00 GMT",
                "Fri, 31 Dec 9999 23:59:59 GMT", "Sun, 06 Nov 99999999999 08:49:37 GMT",
                "Sunday, 06-Nov-94 08:49:37 GMT",
                "Sun Nov  6 08:49:37 1994", "2026-01-01T00:00:00Z", "Sun, 06 Nov 1994 08:49:37 XYZ", "GMT",
                "Sun, 06 Nov 1994 08:49:37 GMT GMT", "\u{0}", "Sun, -1 Nov 1994 08:49:37 GMT",
            ])
        case 1: return String(valid.prefix(rng.int(0..<valid.count)))
        case 2: return valid + String(repeating: " GMT", count: rng.int(1...3))
        case 3: return String(repeating: valid, count: rng.int(2...200))
        case 4: return text(pieces: 3).value
        default:
            var scalars = Array(valid.unicodeScalars)
            if !scalars.isEmpty { scalars[rng.int(0..<scalars.count)] = Self.scalar(rng.int(0x20...0x7E)) }
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars)
            return String(view)
        }
    }

    /// Headers of a response: content types right and wrong, names in any case, duplicates that
    /// differ only in case, dates well and badly formed.
    mutating func headers(json: Bool) -> [String: String] {
        var headers: [String: String] = [:]
        let contentType = json && rng.chance(0.85) ? rng.pick(Self.jsonContentTypes) : rng.pick(Self.otherContentTypes)
        switch rng.weighted([70, 10, 10, 10]) {
        case 0: headers["Content-Type"] = contentType
        case 1: break
        case 2: headers[rng.pick(["content-type", "CONTENT-TYPE", "Content-type", "cOnTeNt-TyPe"])] = contentType
        default:
            headers["Content-Type"] = contentType
            headers["content-type"] = rng.pick(Self.otherContentTypes + Self.jsonContentTypes)
        }
        if rng.chance(0.6) {
            headers[rng.chance(0.8) ? "Date" : rng.pick(["date", "DATE"])] =
                rng.chance(0.7) ? httpDate().text : malformedDate()
            if rng.chance(0.05) { headers["date"] = malformedDate() }
        }
        if rng.chance(0.5) { headers["client-request-id"] = rng.chance(0.8) ? UUID().uuidString : text().value }
        if rng.chance(0.05) { headers[text(pieces: 1).value] = text(pieces: 2).value }
        return headers
    }

    // MARK: Mutations

    /// Mutates a body: truncation, bit flips, inserted or deleted bytes, swapped quotes and brackets,
    /// duplicated slices, byte order marks.
    mutating func mutate(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<rng.weighted([0, 70, 20, 10]) {
            switch rng.int(0..<8) {
            case 0:
                bytes = Array(bytes.prefix(rng.int(0...bytes.count)))
            case 1:
                guard !bytes.isEmpty else { continue }
                let index = rng.int(0..<bytes.count)
                bytes[index] ^= UInt8(1) << UInt8(rng.int(0..<8))
            case 2:
                let inserted: [UInt8] =
                    rng.chance(0.5)
                    ? [rng.byte()]
                    : Array(
                        rng.pick(["{", "}", "[", "]", ",", ":", "\"", "\\", " ", "\\u", "\u{0}", "é", "null", "1e999"])
                            .utf8)
                bytes.insert(contentsOf: inserted, at: rng.int(0...bytes.count))
            case 3:
                guard !bytes.isEmpty else { continue }
                let start = rng.int(0..<bytes.count)
                bytes.removeSubrange(start..<min(bytes.count, start + rng.int(1...4)))
            case 4:
                let swaps: [(UInt8, UInt8)] = [
                    (0x22, 0x27), (0x7B, 0x5B), (0x7D, 0x5D), (0x5B, 0x7B), (0x5D, 0x7D), (0x3A, 0x2C), (0x2C, 0x3A),
                ]
                let (from, to) = rng.pick(swaps)
                let indices = bytes.indices.filter { bytes[$0] == from }
                if !indices.isEmpty { bytes[rng.pick(indices)] = to }
            case 5:
                guard !bytes.isEmpty else { continue }
                let start = rng.int(0..<bytes.count)
                let slice = bytes[start..<min(bytes.count, start + rng.int(1...40))]
                bytes.insert(contentsOf: slice, at: rng.int(0...bytes.count))
            case 6:
                bytes =
                    rng.pick([
                        [0xEF, 0xBB, 0xBF], [0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF], [0xFE, 0xFF], [0xFF, 0xFE],
                        [0xEF, 0xBB],
                    ]) + bytes
            default:
                bytes += Array(rng.pick([" ", "\n", "}", "]", "x", "\u{0}", ",", " {}"]).utf8)
            }
        }
        return bytes
    }
}

/// One answer the generated server gives: a response, or no response at all.
enum FuzzAnswer: Sendable {
    case response(HTTPResponse)
    case failure(URLError.Code)
}

extension Gen {
    /// How a generated server behaves.
    struct Profile {
        /// Weights of: a valid 200 body, a valid 400 body, a redirect, anything else.
        var weights: [Int]
        /// Whether a transport failure can stand for an answer.
        var failures: Bool
        /// How often an error body is one that leads on (MFA, registration, password or attributes required).
        var continuing = 0.0

        static let classify = Profile(weights: [25, 25, 5, 45], failures: false)
        /// Servers for the flows, from mostly valid to mostly broken.
        static let calmFlow = Profile(weights: [86, 8, 1, 5], failures: true, continuing: 0.6)
        static let flow = Profile(weights: [65, 15, 3, 17], failures: true, continuing: 0.4)
        static let chaoticFlow = Profile(weights: [40, 20, 5, 35], failures: true, continuing: 0.2)
    }

    /// An answer of `endpoint` and the body bytes it carries.
    mutating func answer(_ endpoint: Endpoint, profile: Profile) -> FuzzAnswer {
        let json: FuzzJSON
        var status: Int
        if profile.continuing > 0, Self.endpointErrors(endpoint).contains(where: \.continues),
            rng.chance(profile.continuing / 2)
        {
            // An error that leads on to the next state (MFA, registration, password, attributes).
            let text = errorBody(endpoint, continuing: 1).render(using: &rng)
            return .response(HTTPResponse(statusCode: 400, headers: headers(json: true), body: Data(text.utf8)))
        }
        switch rng.weighted(profile.weights) {
        case 0:
            json = successBody(endpoint)
            status = rng.chance(0.97) ? 200 : rng.pick([201, 202, 203, 204, 206, 299])
        case 1:
            json = errorBody(endpoint, continuing: profile.continuing)
            status = rng.chance(0.9) ? 400 : rng.pick([401, 403, 404, 409, 429, 499])
        case 2:
            json = redirectBody()
            status = 200
        default:
            return weirdAnswer(endpoint, failures: profile.failures)
        }
        let text = json.render(spacing: rng.chance(0.1), using: &rng)
        return .response(HTTPResponse(statusCode: status, headers: headers(json: true), body: Data(text.utf8)))
    }

    private mutating func weirdAnswer(_ endpoint: Endpoint, failures: Bool) -> FuzzAnswer {
        let base: FuzzJSON = rng.pick([successBody(endpoint), errorBody(endpoint), redirectBody()])
        var status = rng.chance(0.5) ? rng.pick([200, 400]) : rng.int(100...599)
        var body: [UInt8]
        switch rng.int(0..<12) {
        case 0, 1:
            body = mutate(Array(base.render(using: &rng).utf8))
        case 2:
            // Every field of the wrong type, often.
            var heavy = self
            heavy.wrongTypeRate = 0.6
            let json = rng.chance(0.5) ? heavy.successBody(endpoint) : heavy.errorBody(endpoint)
            self = heavy
            self.wrongTypeRate = 0.06
            body = Array(json.render(using: &rng).utf8)
        case 3:
            body = rng.bytes(rng.int(0...200))
        case 4:
            body = []
        case 5:
            body = Array(
                rng.pick([
                    "<html><body>Service unavailable</body></html>", "Bad Request", "<?xml version=\"1.0\"?><error/>",
                    "null", "[]", "[{}]", "\"error\"", "42", "true", "{}", " ", "{\"error\":null}", "{\"error\":\"\"}",
                    "{\"error\":42}", "{\"challenge_type\":[\"redirect\"]}",
                ]).utf8)
        case 6:
            // A megabyte string in a valid shape, or deep nesting.
            let inner: FuzzJSON = rng.chance(0.1) ? .string(hugeText()) : nested(rng.pick([64, 65, 66, 1000, 10_000]))
            let json: FuzzJSON
            if case .object(var members) = base {
                members.insert(
                    .init(
                        key: FuzzText(rng.pick(["error_description", "redirect_reason", "x", "continuation_token"])),
                        value: inner), at: rng.int(0...members.count))
                json = .object(members)
            } else {
                json = inner
            }
            body = Array(json.render(using: &rng).utf8)
        case 7:
            body = [0xEF, 0xBB, 0xBF] + Array(base.render(using: &rng).utf8)
        case 8:
            // Top-level values that are not objects.
            body = Array(FuzzJSON.array([base]).render(using: &rng).utf8)
        case 9 where failures:
            return .failure(
                rng.pick([
                    .timedOut, .networkConnectionLost, .notConnectedToInternet, .cannotFindHost,
                    .secureConnectionFailed, .cancelled,
                ]))
        case 10:
            // Unknown error and suberror codes, any status.
            body = Array(
                FuzzJSON.obj([
                    ("error", .string(text(pieces: rng.int(1...3)))), ("suberror", .string(text(pieces: 2))),
                    ("error_codes", .array([number(), number()])),
                ]).render(using: &rng).utf8)
            status = rng.chance(0.7) ? 400 : status
        default:
            body = Array(base.render(spacing: true, using: &rng).utf8)
        }
        return .response(HTTPResponse(statusCode: status, headers: headers(json: rng.chance(0.5)), body: Data(body)))
    }
}

/// RFC 7231 dates, written from first principles for the oracle (no `DateFormatter`).
enum HTTPDateText {
    static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func format(_ seconds: Int) -> String {
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let secondOfDay = seconds - days * 86_400
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        let weekday = weekdays[((days % 7) + 7) % 7]
        return weekday + ", " + String(format: "%02d", day) + " " + months[month - 1] + " "
            + String(format: "%04d %02d:%02d:%02d", year, secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60)
            + " GMT"
    }
}

// MARK: - Oracles

/// What an answer must be classified as, judged from the parsed body and the status alone.
enum FuzzExpectation: Equatable {
    case success
    case redirect(reason: String?)
    case server(error: String)
    case unexpected(status: Int, problem: UnexpectedAnswer.Problem)

    /// Server text longer than 400 characters is cut there, with an ellipsis.
    static func capped(_ text: String) -> String { text.count <= 400 ? text : String(text.prefix(400)) + "…" }

    init(_ response: HTTPResponse) {
        let status = response.statusCode
        // Bodies over 1 MiB are refused before they are read.
        guard response.body.count <= 1 << 20 else {
            self = .unexpected(status: status, problem: .tooLarge)
            return
        }
        let parsed = response.body.isEmpty ? nil : try? JSONValue.parse(response.body)
        let members = parsed?.objectValue
        switch status {
        case 429:
            // Too many requests: never an API error, whatever the body (the retry policy reads it).
            self = .unexpected(status: status, problem: .status)
        case 200...299:
            guard let members else {
                self = .unexpected(
                    status: status,
                    problem: response.body.isEmpty ? .emptyBody : parsed == nil ? .notJSON : .notAnObject)
                return
            }
            if Lenient.string(members, "challenge_type")?.lowercased() == "redirect" {
                self = .redirect(reason: Lenient.string(members, "redirect_reason").map(Self.capped))
            } else {
                self = .success
            }
        case 400...499:
            guard let members else {
                self = .unexpected(
                    status: status,
                    problem: response.body.isEmpty ? .emptyBody : parsed == nil ? .notJSON : .notAnObject)
                return
            }
            guard let error = Lenient.string(members, "error"), !error.isEmpty else {
                self = .unexpected(status: status, problem: .missingField("error"))
                return
            }
            // An attribute form naming no attribute is not an answer.
            func names(_ value: String) -> Bool {
                [error, Lenient.string(members, "suberror") ?? ""].contains {
                    $0.caseInsensitiveCompare(value) == .orderedSame
                }
            }
            // Invalid attributes: non-empty strings, or objects whose exact `name` is one; required
            // attributes: objects with a non-empty `name` (read leniently).
            let listed = { (key: String, needsObjects: Bool) -> Int in
                (Lenient.value(members, key)?.arrayValue ?? []).filter { item in
                    if needsObjects {
                        return !(item.objectValue.flatMap { Lenient.string($0, "name") } ?? "").isEmpty
                    }
                    return !(item.stringValue ?? item["name"]?.stringValue ?? "").isEmpty
                }.count
            }
            if names("attribute_validation_failed"), listed("invalid_attributes", false) == 0 {
                self = .unexpected(status: status, problem: .emptyList("invalid_attributes"))
                return
            }
            if error.caseInsensitiveCompare("attributes_required") == .orderedSame,
                listed("required_attributes", true) == 0
            {
                self = .unexpected(status: status, problem: .emptyList("required_attributes"))
                return
            }
            self = .server(error: Self.capped(error))
        default:
            self = .unexpected(status: status, problem: .status)
        }
    }
}

/// The documented leniency of answers, restated for the oracles: a key matches after trimming
/// white space, the exact key first, then the padded variant that sorts first (so that the same
/// bytes always decode the same); a finite number reads as a string.
enum Lenient {
    static func value(_ members: [String: JSONValue], _ key: String) -> JSONValue? {
        if let exact = members[key] { return exact }
        return members.filter { $0.key.trimmingCharacters(in: .whitespacesAndNewlines) == key }
            .min { $0.key < $1.key }?.value
    }

    /// Kept for the checks that may skip a key; with a deterministic choice nothing is ambiguous.
    static func isAmbiguous(_ members: [String: JSONValue], _ key: String) -> Bool { false }

    static func string(_ members: [String: JSONValue], _ key: String) -> String? {
        switch value(members, key) {
        case .string(let text): text
        case .number(let number) where number.isFinite: JSONValue.number(number).description
        default: nil
        }
    }
}

/// Secret markers (`CT-SECRET-3`, `AT-SECRET-12`, …) and where a server put them.
enum Markers {
    /// Keys whose values are secrets; everything else a server sends may be echoed.
    static let secretKeys: Set<String> = ["continuation_token", "access_token", "refresh_token", "id_token"]

    /// Every marker in `text`: capital letters, `-SECRET-`, then digits or capital letters.
    static func find(in text: String) -> Set<String> {
        let bytes = Array(text.utf8)
        let needle = Array("-SECRET-".utf8)
        var found: Set<String> = []
        var index = 0
        while index + needle.count <= bytes.count {
            guard bytes[index] == needle[0], Array(bytes[index..<index + needle.count]) == needle else {
                index += 1
                continue
            }
            var start = index
            while start > 0, (0x41...0x5A).contains(bytes[start - 1]) { start -= 1 }
            var end = index + needle.count
            while end < bytes.count, (0x30...0x39).contains(bytes[end]) || (0x41...0x5A).contains(bytes[end]) {
                end += 1
            }
            found.insert(String(decoding: bytes[start..<end], as: UTF8.self))
            index = end
        }
        return found
    }

    /// Markers that a body carries outside secret fields (as keys or in echoable values): the SDK
    /// may show those, since the server put them where anything may be shown.
    static func echoable(in body: Data) -> Set<String> {
        guard let value = try? JSONValue.parse(body) else { return [] }
        var found: Set<String> = []
        func walk(_ value: JSONValue) {
            switch value {
            case .string(let text): found.formUnion(find(in: text))
            case .array(let values): values.forEach(walk)
            case .object(let members):
                for (key, member) in members {
                    found.formUnion(find(in: key))
                    if !secretKeys.contains(key.trimmingCharacters(in: .whitespacesAndNewlines)) { walk(member) }
                }
            default: break
            }
        }
        walk(value)
        return found
    }
}

/// base64url without padding, written here so that the generator does not lean on the SDK's encoder.
func encodeBase64URL(_ data: Data) -> String {
    var bytes = Array(data.base64EncodedString().utf8)
    while bytes.last == UInt8(ascii: "=") { bytes.removeLast() }
    for index in bytes.indices {
        if bytes[index] == UInt8(ascii: "+") { bytes[index] = UInt8(ascii: "-") }
        if bytes[index] == UInt8(ascii: "/") { bytes[index] = UInt8(ascii: "_") }
    }
    return String(decoding: bytes, as: UTF8.self)
}
