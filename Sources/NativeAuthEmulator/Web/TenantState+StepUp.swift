import AuthSupport
import Foundation
import NativeAuth

/// When and how a user last actively authenticated: the `auth_time` and `acr` of the tokens of a
/// browser or first-party sign-in (RFC 9470 §6.1), which its refreshes keep.
struct AuthenticationEvent: Sendable, Equatable {
    var time: Date
    var acr: String

    /// `auth_time`: whole seconds since 1970.
    var seconds: Int { Int(time.timeIntervalSince1970.rounded(.down)) }
}

/// What the protected resource asks of the sign-in behind a token (``EmulatedTenant/requireStepUp(acrValues:maxAge:)``).
struct StepUpRequirement: Sendable, Equatable {
    var acrValues: [String]
    var maxAge: Int?
}

extension EmulatedTenant {
    /// The `acr` of a sign-in with one factor: a password, or a one-time code alone.
    public static let singleFactorACR = "urn:nativeauth:emulator:acr:1fa"
    /// The `acr` of a sign-in with two factors: a password or a code, then a second code; or a
    /// first-party sign-in that continued a signed-in session with a code (a step-up).
    public static let multiFactorACR = "urn:nativeauth:emulator:acr:mfa"

    /// Makes the protected resource (`GET emulator/me`) refuse an access token whose sign-in is
    /// not strong or recent enough, with RFC 9470's challenge (§3): `401` and
    /// `WWW-Authenticate: Bearer error="insufficient_user_authentication", error_description=…,
    /// acr_values="…", max_age="…"` (the `DPoP` scheme for a DPoP-bound token), and the same `error`
    /// in a JSON body.
    ///
    /// A token passes when its `acr` is one of `acrValues` (any `acr` when empty) and its
    /// `auth_time` is at most `maxAge` seconds old on the tenant's clock (no limit when `nil`). Only
    /// the tokens of browser and first-party sign-ins carry `acr` and `auth_time`: the native
    /// API's are refused while a requirement is set. With neither argument, the resource asks
    /// nothing more again.
    ///
    /// ```swift
    /// tenant.requireStepUp(acrValues: [EmulatedTenant.multiFactorACR], maxAge: 300)
    /// ```
    public func requireStepUp(acrValues: [String] = [], maxAge: Int? = nil) {
        let requirement =
            acrValues.isEmpty && maxAge == nil ? nil : StepUpRequirement(acrValues: acrValues, maxAge: maxAge)
        state.withLock { $0.web.stepUp = requirement }
    }

    /// Makes the authorization challenge endpoint ignore the `max_age` of the next request that
    /// continues a signed-in session, once, as a provider that does not support it would: when the
    /// session's last authentication meets the request's `acr_values`, the session is restored
    /// with no new authentication, and the new tokens carry its earlier `auth_time`. For testing a
    /// client's check of `auth_time` (OpenID Connect Core §3.1.3.7 item 13).
    public func ignoreNextMaxAge() {
        state.withLock { $0.web.ignoresNextMaxAge = true }
    }
}

/// Step-up at the tenant (RFC 9470): the protected resource's requirement, the `acr_values` and
/// `max_age` of the authorization challenge endpoint, and the `acr` a sign-in earns.
extension TenantState {
    /// The `acr` that `factors` verified factors earn, answering `requested` (in the client's
    /// order of preference): the first requested value they meet (two factors meet both of the
    /// tenant's values, one only the single-factor one), else the one they are.
    static func acr(factors: Int, requested: [String]) -> String {
        let met =
            factors >= 2
            ? [EmulatedTenant.multiFactorACR, EmulatedTenant.singleFactorACR] : [EmulatedTenant.singleFactorACR]
        return requested.first { met.contains($0) } ?? met[0]
    }

    /// Whether the first of `requested` the tenant knows asks for two factors.
    static func wantsSecondFactor(_ requested: [String]) -> Bool {
        let known = [EmulatedTenant.singleFactorACR, EmulatedTenant.multiFactorACR]
        return requested.first { known.contains($0) } == EmulatedTenant.multiFactorACR
    }

    /// The `acr_values` (space-separated) and `max_age` (a non-negative integer) of a challenge
    /// request (OpenID Connect Core §3.1.2.1, as RFC 9470 §4 and the draft's §7 send them).
    func requestedAuthentication(_ call: Call) throws(ChallengeRefusal) -> (acrValues: [String], maxAge: Int?) {
        var acrValues: [String] = []
        for value in (call.form["acr_values"] ?? "").split(separator: " ").map(String.init)
        where !acrValues.contains(value) {
            acrValues.append(value)
        }
        guard let text = call.form["max_age"] else { return (acrValues, nil) }
        guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let maxAge = Int(text)
        else { throw ChallengeRefusal("invalid_request", "max_age must be a non-negative integer.") }
        return (acrValues, maxAge)
    }

    /// Whether `event` meets `acrValues` (any `acr` when empty) and is at most `maxAge` seconds old.
    static func meets(_ event: AuthenticationEvent?, acrValues: [String], maxAge: Int?, now: Date) -> Bool {
        guard let event else { return false }
        if !acrValues.isEmpty, !acrValues.contains(event.acr) { return false }
        if let maxAge, now.timeIntervalSince(event.time) > TimeInterval(maxAge) { return false }
        return true
    }

    /// The resource's step-up challenge for a token whose `acr` and `auth_time` do not meet the
    /// requirement, or `nil` when they do (or none is set).
    func stepUpRefusal(acr: String?, authTime: Date?, now: Date) -> (description: String, parameters: String)? {
        guard let requirement = web.stepUp else { return nil }
        let event = authTime.map { AuthenticationEvent(time: $0, acr: acr ?? "") }
        guard !Self.meets(event, acrValues: requirement.acrValues, maxAge: requirement.maxAge, now: now) else {
            return nil
        }
        var parameters = ""
        if !requirement.acrValues.isEmpty {
            parameters += ", acr_values=\"\(requirement.acrValues.joined(separator: " "))\""
        }
        if let maxAge = requirement.maxAge { parameters += ", max_age=\"\(maxAge)\"" }
        let levelMet = requirement.acrValues.isEmpty || requirement.acrValues.contains(acr ?? "")
        let description =
            levelMet ? "More recent authentication is required" : "A different authentication level is required"
        return (description, parameters)
    }
}
