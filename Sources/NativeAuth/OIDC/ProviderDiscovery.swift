import Foundation

/// Finds a provider's metadata from its issuer, once per client.
///
/// It fetches `{issuer}/.well-known/openid-configuration` (OpenID Connect Discovery §4); when that
/// answers with a 3xx or a 4xx other than 429, or with a document whose `issuer` is another's (a
/// host whose root document is not this authorization server's), it tries RFC 8414's
/// `https://host/.well-known/oauth-authorization-server{path}`. A network failure, a 5xx, a 429 or
/// a malformed document stops there. The document's `issuer` must be the configured issuer (see
/// ``ProviderDiscovery/issuerMatches(configured:found:)``), and every endpoint `https` (or `http`
/// on a loopback host).
///
/// The first successful answer is kept for the life of the object; concurrent first calls share
/// one fetch. A failure is not kept: the next call fetches again. Metadata the app gave
/// (``init(metadata:pipeline:)``) is never fetched.
actor ProviderDiscovery {
    let issuer: URL
    private let pipeline: RequestPipeline
    private var cached: ProviderMetadata?
    /// Whether the metadata is the app's own, which nothing replaces.
    private let isFixed: Bool
    private var inFlight: Task<Result<ProviderMetadata, WebSignInError>, Never>?

    /// - Throws: ``WebSignInError/isInvalidParameters`` when `issuer` is not an absolute `https`
    ///   URL (or `http` on a loopback host) without query or fragment.
    init(issuer: URL, pipeline: RequestPipeline) throws(WebSignInError) {
        try Self.checkIssuer(issuer)
        self.issuer = issuer
        self.pipeline = pipeline
        isFixed = false
    }

    /// Metadata the app built itself, for a provider that publishes no document: no request is
    /// ever sent for it.
    ///
    /// - Throws: ``WebSignInError/isInvalidParameters`` when the `issuer` is not an absolute
    ///   `https` URL (or `http` on a loopback host) without query or fragment, or an endpoint is
    ///   not `https` (`http` on a loopback host only).
    init(metadata: ProviderMetadata, pipeline: RequestPipeline) throws(WebSignInError) {
        guard let issuer = URL(string: metadata.issuer), !metadata.issuer.isEmpty else {
            throw .invalidParameters("The metadata's issuer is not a URL.")
        }
        try Self.checkIssuer(issuer)
        for (name, url) in metadata.endpoints where EndpointPolicy.problem(with: url, field: name) != nil {
            throw .invalidParameters("The metadata's \(name) must be https (http for loopback hosts only).")
        }
        self.issuer = issuer
        self.pipeline = pipeline
        cached = metadata
        isFixed = true
    }

    /// Discovery through `transport` on a pipeline of its own (no interceptors, the default deadline).
    init(issuer: URL, transport: any HTTPTransport, log: Log = Log(logger: nil)) throws(WebSignInError) {
        try self.init(issuer: issuer, pipeline: .web(transport: transport, log: log))
    }

    /// The provider's metadata: the kept copy, or a fresh fetch shared with concurrent callers.
    ///
    /// The shared fetch is not cancelled with any one caller (the others still wait for it); a
    /// cancelled caller gets its outcome when it ends, which the transport's timeout bounds.
    func metadata(correlationId: UUID? = nil) async throws(WebSignInError) -> ProviderMetadata {
        if let cached { return cached }
        let task: Task<Result<ProviderMetadata, WebSignInError>, Never>
        if let inFlight {
            task = inFlight
        } else {
            let (issuer, pipeline) = (issuer, pipeline)
            task = Task {
                do throws(WebSignInError) {
                    return .success(
                        try await Self.discover(
                            issuer: issuer, pipeline: pipeline, correlationId: correlationId))
                } catch {
                    return .failure(error)
                }
            }
            inFlight = task
        }
        let result = await task.value
        if inFlight == task { inFlight = nil }
        switch result {
        case .success(let metadata):
            cached = metadata
            return metadata
        case .failure(let error):
            throw error.with(correlationId: correlationId)
        }
    }

    /// Forgets the kept metadata; the next call fetches again. The app's own metadata is kept.
    func invalidate() {
        if !isFixed { cached = nil }
    }

    // MARK: Fetching

    /// Fetches and checks the metadata of `issuer`, with the RFC 8414 fallback.
    static func discover(
        issuer: URL, pipeline: RequestPipeline, correlationId: UUID?
    ) async throws(WebSignInError) -> ProviderMetadata {
        let log = pipeline.log
        let first = try await fetch(openIDConfigurationURL(for: issuer), pipeline, correlationId)
        // A document of another issuer is not this server's: RFC 8414 §3 may still name it.
        var mismatch: WebSignInError?
        if (200...299).contains(first.statusCode) {
            do {
                return try parse(first.body, configuredIssuer: issuer, requireJWKS: true)
            } catch {
                guard case .discoveryFailed(.issuerMismatch) = error.code else { throw error }
                mismatch = error
            }
        }
        guard mismatch != nil || shouldFallBack(status: first.statusCode),
            let fallbackURL = authorizationServerURL(for: issuer)
        else {
            if let mismatch { throw mismatch }
            throw WebSignInError(.discoveryFailed(.status(first.statusCode)), httpStatusCode: first.statusCode)
        }
        log(
            .debug, "trying RFC 8414 discovery",
            mismatch == nil ? ["status": "\(first.statusCode)"] : ["reason": "issuer mismatch"],
            correlationId: correlationId)
        let second = try await fetch(fallbackURL, pipeline, correlationId)
        guard (200...299).contains(second.statusCode) else {
            // No RFC 8414 document either: the OpenID one's mismatch says more than a 404.
            if let mismatch { throw mismatch }
            throw WebSignInError(.discoveryFailed(.status(second.statusCode)), httpStatusCode: second.statusCode)
        }
        return try parse(second.body, configuredIssuer: issuer, requireJWKS: false)
    }

    private static func fetch(
        _ url: URL, _ pipeline: RequestPipeline, _ correlationId: UUID?
    ) async throws(WebSignInError) -> HTTPResponse {
        let request = HTTPRequest(
            method: "GET", url: url, headers: WebHTTP.headers(correlationId: correlationId, form: false))
        return try await WebHTTP.send(
            request, to: .discovery, through: pipeline, readOnly: true, correlationId: correlationId,
            failures: .discovery)
    }

    /// A 3xx (never followed) or a 4xx other than 429 means "not here"; anything else is a failure.
    static func shouldFallBack(status: Int) -> Bool {
        (300...399).contains(status) || ((400...499).contains(status) && status != 429)
    }

    /// `{issuer}/.well-known/openid-configuration`, the issuer's trailing slash removed first.
    static func openIDConfigurationURL(for issuer: URL) -> URL {
        let base = trimmingOneSlash(issuer.absoluteString)
        return URL(string: base + "/.well-known/openid-configuration") ?? issuer
    }

    /// RFC 8414 §3: the well-known segment goes between the host and the issuer's path.
    static func authorizationServerURL(for issuer: URL) -> URL? {
        guard var components = URLComponents(url: issuer, resolvingAgainstBaseURL: false) else { return nil }
        let path = trimmingOneSlash(components.percentEncodedPath)
        components.percentEncodedPath = "/.well-known/oauth-authorization-server" + path
        return components.url
    }

    // MARK: Checking

    /// The configured issuer must be an absolute `https` URL (`http` for loopback hosts) with no
    /// query and no fragment.
    static func checkIssuer(_ issuer: URL) throws(WebSignInError) {
        if EndpointPolicy.problem(with: issuer, field: "issuer") != nil {
            throw .invalidParameters("The issuer must be an absolute https URL (http for loopback hosts only).")
        }
        let components = URLComponents(url: issuer, resolvingAgainstBaseURL: false)
        if components?.query != nil {
            throw .invalidParameters("The issuer must not have a query.")
        }
    }

    /// Whether a document's `issuer` is the configured one.
    ///
    /// OpenID Connect Discovery asks for the exact string. The one difference tolerated is a single
    /// trailing slash on either side (`https://idp.example` and `https://idp.example/`), because
    /// apps often type the issuer one way and providers publish it the other; the document's own
    /// value is kept as ``ProviderMetadata/issuer`` and ID tokens must carry exactly that value.
    /// Case, ports, paths and percent-encoding must match as written.
    ///
    /// Entra External ID (CIAM) publishes its issuer on the tenant id rather than on the name the
    /// app configures: for a configured host `{name}.ciamlogin.com`, an issuer
    /// `https://{tenant-id}.ciamlogin.com/{tenant-id}/v2.0` (the same GUID twice) is accepted. This
    /// exception holds for `ciamlogin.com` authorities, and for `http` loopback ones (below).
    ///
    /// An `http` issuer on a loopback host (`127.0.0.1`, `localhost`, `[::1]`) is a tenant served on
    /// this machine, such as the emulator's HTTP server, which serves the CIAM discovery document
    /// unchanged: its `issuer` names the tenant's ciamlogin.com origin, which the loopback URL can
    /// never equal. So a loopback issuer accepts the same CIAM tenant form, and nothing else. The
    /// document's endpoints must still be `https` or loopback `http`, and ID tokens must still carry
    /// exactly the issuer the document names. Authorities on any other host are not affected.
    static func issuerMatches(configured: URL, found: String) -> Bool {
        if trimmingOneSlash(configured.absoluteString) == trimmingOneSlash(found) { return true }
        guard let host = configured.host?.lowercased() else { return false }
        switch configured.scheme?.lowercased() {
        case "https" where host.hasSuffix(".ciamlogin.com"): return isCIAMTenantIssuer(found)
        case "http" where EndpointPolicy.isLoopback(host): return isCIAMTenantIssuer(found)
        default: return false
        }
    }

    /// `https://{guid}.ciamlogin.com/{guid}/v2.0`, the same GUID twice, nothing else.
    static func isCIAMTenantIssuer(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), components.scheme == "https",
            let host = components.host?.lowercased(), host.hasSuffix(".ciamlogin.com"),
            components.port == nil, components.query == nil, components.fragment == nil, components.user == nil
        else { return false }
        let tenant = String(host.dropLast(".ciamlogin.com".count))
        guard UUID(uuidString: tenant) != nil else { return false }
        let parts = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0].isEmpty && parts[1].lowercased() == tenant && parts[2] == "v2.0"
    }

    private static func trimmingOneSlash(_ text: String) -> String {
        text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    // MARK: Parsing

    /// Reads and checks a discovery document: an OpenID Connect one when `requireJWKS` (OpenID
    /// Connect Discovery §3 requires `jwks_uri` and `authorization_endpoint`), else RFC 8414's,
    /// which may leave `authorization_endpoint` out when it names an
    /// `authorization_challenge_endpoint` (RFC 8414 §2: required "unless no grant types are
    /// supported that use the authorization endpoint"; a first-party-only server).
    static func parse(_ body: Data, configuredIssuer: URL, requireJWKS: Bool) throws(WebSignInError)
        -> ProviderMetadata
    {
        let metadata: ProviderMetadata
        do {
            metadata = try read(body, configuredIssuer: configuredIssuer, requireJWKS: requireJWKS)
        } catch {
            throw WebSignInError(.discoveryFailed(error))
        }
        try metadata.checkEndpoints()
        return metadata
    }

    /// The reading part of ``parse(_:configuredIssuer:requireJWKS:)``: it throws the bare problem,
    /// which becomes an error in one place rather than at every check.
    private static func read(_ body: Data, configuredIssuer: URL, requireJWKS: Bool)
        throws(WebSignInError.DiscoveryProblem) -> ProviderMetadata
    {
        guard body.count <= RequestPipeline.maximumBodySize else { throw .tooLarge }
        let value: JSONValue
        do {
            value = try JSONValue.parse(body)
        } catch {
            throw .notJSON
        }
        guard let members = value.objectValue else { throw .notAnObject }
        let document = DiscoveryDocument(members: members)

        guard let issuer = try document.string("issuer"), !issuer.isEmpty else {
            throw .missingField("issuer")
        }
        guard issuerMatches(configured: configuredIssuer, found: issuer) else {
            throw .issuerMismatch(expected: configuredIssuer.absoluteString, found: issuer)
        }
        let authorization = try document.url("authorization_endpoint")
        let challenge = try document.url("authorization_challenge_endpoint")
        if authorization == nil, requireJWKS || challenge == nil {
            throw .missingField("authorization_endpoint")
        }
        guard let token = try document.url("token_endpoint") else { throw .missingField("token_endpoint") }
        let jwks = try document.url("jwks_uri")
        if requireJWKS, jwks == nil { throw .missingField("jwks_uri") }

        var metadata = ProviderMetadata(
            issuer: issuer, authorizationEndpoint: authorization, tokenEndpoint: token, jwksURI: jwks)
        // The other members, read in the order of these tables: one loop each rather than a
        // copy of the reading code per member.
        for (field, keyPath) in ProviderMetadata.optionalEndpoints {
            metadata[keyPath: keyPath] = try document.url(field)
        }
        metadata.authorizationChallengeEndpoint = challenge
        for (field, keyPath) in ProviderMetadata.stringLists {
            metadata[keyPath: keyPath] = try document.strings(field)
        }
        metadata.authorizationResponseIssParameterSupported =
            try document.bool("authorization_response_iss_parameter_supported") ?? false
        metadata.requirePushedAuthorizationRequests =
            try document.bool("require_pushed_authorization_requests") ?? false
        metadata.document = members
        return metadata
    }
}

/// A discovery document's members, read strictly: a member of the wrong type is an error, a
/// `null` member counts as absent.
private struct DiscoveryDocument {
    let members: [String: JSONValue]

    func string(_ field: String) throws(WebSignInError.DiscoveryProblem) -> String? {
        switch members[field] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw .wrongType(field)
        }
    }

    /// An absolute URL with a scheme and a host; an empty string counts as absent.
    func url(_ field: String) throws(WebSignInError.DiscoveryProblem) -> URL? {
        guard let text = try string(field), !text.isEmpty else { return nil }
        guard let url = URL(string: text), url.scheme != nil, url.host?.isEmpty == false else {
            throw .invalidURL(field)
        }
        return url
    }

    func strings(_ field: String) throws(WebSignInError.DiscoveryProblem) -> [String]? {
        switch members[field] {
        case nil, .null?: return nil
        case .array(let values)?:
            var strings: [String] = []
            for value in values {
                guard let string = value.stringValue else { throw .wrongType(field) }
                strings.append(string)
            }
            return strings
        default: throw .wrongType(field)
        }
    }

    func bool(_ field: String) throws(WebSignInError.DiscoveryProblem) -> Bool? {
        switch members[field] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw .wrongType(field)
        }
    }
}

extension ProviderDiscovery: CustomReflectable {
    /// Nothing: the state is the actor's to read, and a `Mirror` would read it off the actor.
    nonisolated var customMirror: Mirror { Mirror(self, children: [:]) }
}
