import Foundation

/// Query parameters that aim the SDK's requests at one slice of the service: a test slice and a
/// data center. MSAL's `MSALSliceConfig`, set as ``NativeAuthConfiguration/sliceConfig``.
///
/// MSAL documents it as the parameters "to target MSAL at a specific test slice & flight": an app
/// needs it only when Microsoft asks for it. The SDK adds them where MSAL's native authentication
/// does (Docs/NativeAuthV2Protocol.md, "The slice parameters"):
///
/// - every native authentication request of V1, and V2's `authorize-challenge` and token requests,
///   get `dc=`…;
/// - a V2 link gets `dc=`… unless its href has a `dc` of its own, which wins;
/// - a refresh of the tokens at `oauth2/v2.0/token` gets `slice=`… and `dc=`… (MSAL refreshes
///   through its token cache's silent request, which carries both);
/// - a browser sign-in of the native client sends both to the authorization endpoint and the
///   token endpoint, as MSAL's interactive sign-in does.
///
/// ```swift
/// configuration.sliceConfig = SliceConfig(dc: "…")  // the data center Microsoft names
/// ```
public struct SliceConfig: Sendable, Hashable, CustomStringConvertible {
    /// The test slice: the `slice` query parameter; sent with a refresh and a browser sign-in
    /// only, as MSAL does.
    public var slice: String?
    /// The data center: the `dc` query parameter.
    public var dc: String?

    /// Creates the parameters; a `nil` one is not sent.
    public init(slice: String? = nil, dc: String? = nil) {
        self.slice = slice
        self.dc = dc
    }

    /// Both values: they name a slice of the service, nothing secret.
    public var description: String {
        "SliceConfig(slice: \(slice.map { "\"\($0)\"" } ?? "nil"), dc: \(dc.map { "\"\($0)\"" } ?? "nil"))"
    }

    /// `url` with `pairs` added to its query, each value percent-encoded (only RFC 3986's
    /// unreserved characters are left as they are). A parameter the URL's query already names is
    /// kept as it is and not added again (a discovered endpoint's own `dc` wins, as a V2 link's does).
    static func appending(_ pairs: [(name: String, value: String?)], to url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        let present = (components.queryItems ?? []).map(\.name)
        let added = pairs.compactMap { pair in
            present.contains(pair.name) ? nil : pair.value.map { "\(pair.name)=\(encoded($0))" }
        }
        guard !added.isEmpty else { return url }
        let query = [components.percentEncodedQuery].compactMap { $0 }.filter { !$0.isEmpty } + added
        components.percentEncodedQuery = query.joined(separator: "&")
        return components.url ?? url
    }

    /// `value`, percent-encoded for a query.
    static func encoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
