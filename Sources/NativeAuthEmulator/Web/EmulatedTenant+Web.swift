public import Foundation

extension EmulatedTenant {
    /// The issuer to configure an OpenID Connect client with (such as `WebAuthClient`):
    /// `https://{subdomain}.ciamlogin.com/{tenantId}/v2.0`, the form Entra documents for external
    /// tenants. Its discovery document is at `{issuer}/.well-known/openid-configuration`.
    ///
    /// A `NativeAuthClient` needs none of this: its browser sign-in finds the same document at
    /// `{authority}/v2.0`. The `issuer` the document and the ID tokens carry is
    /// ``issuerIdentifier``, on the tenant id, which clients accept for `ciamlogin.com` hosts.
    public var issuer: URL {
        var components = URLComponents()
        components.scheme = "https"
        components.host = authority.host
        components.path = "/\(tenantId)/v2.0"
        return components.url ?? authority
    }

    /// The `iss` of the tenant's tokens and of its discovery document:
    /// `https://{tenantId}.ciamlogin.com/{tenantId}/v2.0`.
    public var issuerIdentifier: String {
        "https://\(tenantId).ciamlogin.com/\(tenantId)/v2.0"
    }
}
