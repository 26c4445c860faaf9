import Foundation

/// What the tenant remembers of Native Auth V2 besides its continuation tokens (which live in the
/// flow table with every other flow): the authorization codes `authorize-challenge` issued. Short-lived;
/// not part of a snapshot.
struct NativeAuthV2State: Sendable {
    /// Issued codes by code, kept a lifetime past their expiry so a second or late use is recognised.
    var codes: [String: NativeAuthV2Code] = [:]
}

/// A code issued on resuming a finished V2 journey: whose it is, until when, and whether it was used.
/// It is bound to nothing else: the MSAL clients redeem it with `client_id` alone, no PKCE and no
/// `redirect_uri` (Docs/NativeAuthV2Protocol.md, "Step 4").
struct NativeAuthV2Code: Sendable {
    var username: String
    var expiresAt: Date
    var redeemed = false
}

extension EmulatorEndpoint {
    /// The endpoints of Native Auth V2: answered only with ``EmulatorSettings/nativeAuthV2`` on.
    var isNativeAuthV2: Bool {
        switch self {
        case .authorizeChallenge, .v2SignInStart, .v2MethodChallenge, .v2MethodVerify, .v2MethodRiskVerify: true
        case .v2MethodEnroll, .v2MethodActivate: true
        case .v2ResetPasswordStart, .v2PasswordUpdate, .v2PasswordPollUpdate, .v2PasswordRecover: true
        case .v2SignUpStart, .v2SignUpSubmitAttributes: true
        default: false
        }
    }

    /// The endpoint whose raw value has `{…}` placeholders matching `path` (relative to the tenant
    /// path, percent-encoded), each placeholder standing for one non-empty segment; `nil` when none does.
    init?(pathWithSegments path: String) {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        let candidates = EmulatorEndpoint.allCases.filter { $0.rawValue.contains("{") }
        let match = candidates.first { endpoint in
            let pattern = endpoint.rawValue.split(separator: "/", omittingEmptySubsequences: false)
            guard pattern.count == segments.count else { return false }
            return zip(pattern, segments).allSatisfy { expected, given in
                expected.hasPrefix("{") ? !given.isEmpty : expected == given
            }
        }
        guard let match else { return nil }
        self = match
    }
}
