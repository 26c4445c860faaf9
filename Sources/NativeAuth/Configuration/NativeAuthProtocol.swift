/// Which native authentication protocol a client speaks.
///
/// ```swift
/// var configuration = try NativeAuthConfiguration(clientId: "00000000-…", tenantSubdomain: "contoso")
/// configuration.protocolVersion = .v2
/// ```
public enum NativeAuthProtocol: Sendable, Hashable, CustomStringConvertible {
    /// Native authentication V1: one fixed endpoint per step (`oauth2/v2.0/initiate`,
    /// `challenge`, `token`, …). The default.
    case v1
    /// Native authentication V2, Microsoft's server-driven protocol: the client starts at
    /// `oauth2/v2.0/authorize-challenge` and follows the links each answer advertises.
    ///
    /// Microsoft marks V2 as experimental. Sign-in (a code or a password, the choice of the first
    /// factor, a second factor, method registration, the browser fallback), sign-up and password
    /// reset run over V2 and return the same states as over V1, with a state of its own only where
    /// V2 has a step V1 lacks (Docs/NativeAuthV2.md, "Using V2"). Everything else (refresh,
    /// sign-out, web sign-in) is the same whichever protocol is chosen.
    case v2

    /// `v1` or `v2`.
    public var description: String {
        switch self {
        case .v1: "v1"
        case .v2: "v2"
        }
    }
}
