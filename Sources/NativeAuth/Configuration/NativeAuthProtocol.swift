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
    /// Microsoft marks V2 as experimental. In this version of the SDK only sign-in runs over V2
    /// (an email code or a password, and the browser fallback); sign-up, password reset, a second
    /// factor and method registration are not served over V2 yet (Docs/NativeAuthV2.md, "Using V2").
    case v2

    /// `v1` or `v2`.
    public var description: String {
        switch self {
        case .v1: "v1"
        case .v2: "v2"
        }
    }
}
