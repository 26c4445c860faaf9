import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// Every rule of the resolver, as Docs/NativeAuthV2Protocol.md, "Following an href", describes the three
/// MSAL clients' rewriting and the Android column of its checks table.
@Suite("V2 href resolver: rewriting and every refusal", .hangLimit)
struct V2HrefResolverTests {
    static let authority =
        URL(string: "https://contoso.ciamlogin.com/contoso.onmicrosoft.com") ?? URL(fileURLWithPath: "/")
    let resolver = V2HrefResolver(authority: Self.authority)

    func resolved(_ href: String) -> String? {
        try? resolver.resolve(href).url.absoluteString
    }

    func refusal(_ href: String) -> V2HrefError? {
        do {
            _ = try resolver.resolve(href)
            return nil
        } catch {
            return error
        }
    }

    // "Following an href": the tenant segment is dropped and the rest grafted onto the authority.
    @Test func aRelativeHrefIsGraftedOntoTheAuthoritysPath() {
        let base = "https://contoso.ciamlogin.com/contoso.onmicrosoft.com"
        #expect(
            resolved("/00000000-0000-0000-0000-000000000000/api/v2.0/signin/start") == base + "/api/v2.0/signin/start")
        #expect(
            resolved("/contoso.onmicrosoft.com/api/v0.1/auth/methods/email/m-1/verify") == base
                + "/api/v0.1/auth/methods/email/m-1/verify")
        #expect(resolved("/api/v2.0/signup/start") == base + "/api/v2.0/signup/start")
        #expect(resolved("/tenant/oauth2/v2.0/authorize-challenge") == base + "/oauth2/v2.0/authorize-challenge")
    }

    @Test func theFirstAPIOrOAuth2SegmentWins() {
        let base = "https://contoso.ciamlogin.com/contoso.onmicrosoft.com"
        #expect(resolved("/t/oauth2/x/api/y") == base + "/oauth2/x/api/y")
        #expect(resolved("/t/api/x/oauth2/y") == base + "/api/x/oauth2/y")
        // A segment merely starting with "api" is not the marker.
        #expect(refusal("/t/apis/x") == .noAPISegment)
    }

    @Test func theQueryIsKept() {
        #expect(
            resolved("/t/api/v2.0/auth/methods/email/m-1/challenge?dc=ESTS-PUB-WUS2-AZ1&x=%2F")
                == "https://contoso.ciamlogin.com/contoso.onmicrosoft.com/api/v2.0/auth/methods/email/m-1/challenge?dc=ESTS-PUB-WUS2-AZ1&x=%2F"
        )
    }

    // "Interaction answers": only a leading `{tenant}` template is followed (Android's rule).
    @Test func aLeadingTenantTemplateIsFollowedAndNoOtherTemplate() {
        #expect(
            resolved("/{tenant}/api/v2.0/auth/methods/email/m-1/challenge")
                == "https://contoso.ciamlogin.com/contoso.onmicrosoft.com/api/v2.0/auth/methods/email/m-1/challenge")
        #expect(refusal("/{tenant}/api/v2.0/{methodId}/verify") == .templated)
        #expect(refusal("/{tenantId}/api/v2.0/x") == .templated)
        #expect(refusal("/t/{tenant}/api/v2.0/x") == .templated)
        #expect(refusal("/{tenant}/api/v2.0/x?dc={dc}") == .templated)
        #expect(refusal("/api/v2.0/x{") == .templated)
        #expect(refusal("https://{host}/api/x") == .templated)
    }

    @Test func anAbsoluteHrefToTheAuthoritysOriginIsRewrittenToo() {
        #expect(
            resolved("https://CONTOSO.ciamlogin.com/0000/api/v2.0/poll")
                == "https://contoso.ciamlogin.com/contoso.onmicrosoft.com/api/v2.0/poll")
        #expect(
            resolved("https://contoso.ciamlogin.com:443/0000/api/v2.0/poll")
                == "https://contoso.ciamlogin.com/contoso.onmicrosoft.com/api/v2.0/poll")
        #expect(
            resolved("HTTPS://contoso.ciamlogin.com/x/oauth2/v2.0/token")
                == "https://contoso.ciamlogin.com/contoso.onmicrosoft.com/oauth2/v2.0/token")
    }

    @Test func anotherHostOrPortIsRefused() {
        #expect(refusal("https://evil.example/t/api/v2.0/verify") == .otherHost)
        #expect(refusal("https://contoso.ciamlogin.com.evil.example/t/api/v2.0/verify") == .otherHost)
        #expect(refusal("https://ciamlogin.com/t/api/v2.0/verify") == .otherHost)
        #expect(refusal("https://contoso.ciamlogin.com:8443/t/api/v2.0/verify") == .otherPort)
        #expect(refusal("https://contoso.ciamlogin.com:/t/api/v2.0/verify") == .malformed)
        #expect(refusal("https://contoso.ciamlogin.com:99999/t/api/v2.0/verify") == .malformed)
    }

    @Test func httpIsRefusedUnlessTheAuthorityIsLoopbackHTTP() throws {
        #expect(refusal("http://contoso.ciamlogin.com/t/api/v2.0/verify") == .insecureScheme)
        let local = V2HrefResolver(authority: try #require(URL(string: "http://127.0.0.1:8080/tenant")))
        // A loopback http authority is never the service's: the href's path is used unchanged,
        // as Microsoft's V2 reference has a client use it.
        #expect(
            try local.resolve("http://127.0.0.1:8080/x/api/v2.0/verify").url.absoluteString
                == "http://127.0.0.1:8080/x/api/v2.0/verify")
        #expect(
            try local.resolve("/x/api/v2.0/verify?a=1").url.absoluteString
                == "http://127.0.0.1:8080/x/api/v2.0/verify?a=1")
        // An https authority grafts the path onto its own, as MSAL's clients do.
        #expect(
            try V2HrefResolver(authority: try #require(URL(string: "https://127.0.0.1:8080/tenant"))).resolve(
                "/x/api/v2.0/verify"
            ).url.absoluteString == "https://127.0.0.1:8080/tenant/api/v2.0/verify")
        #expect(throws: V2HrefError.otherPort) { try local.resolve("http://127.0.0.1/x/api/v2.0/verify") }
        #expect(throws: V2HrefError.otherHost) { try local.resolve("http://127.0.0.2:8080/x/api/v2.0/verify") }
        // An https href to a loopback http authority is another port (443, not 8080).
        #expect(throws: V2HrefError.otherPort) { try local.resolve("https://127.0.0.1/x/api/v2.0/verify") }
    }

    @Test func otherSchemesAreRefused() {
        #expect(refusal("ftp://contoso.ciamlogin.com/t/api/x") == .unsupportedScheme)
        #expect(refusal("javascript:alert(1)") == .unsupportedScheme)
        #expect(refusal("file:///etc/api/passwd") == .unsupportedScheme)
        #expect(refusal("https:/t/api/x") == .malformed)
    }

    @Test func networkPathsUserInfoAndFragmentsAreRefused() {
        #expect(refusal("//evil.example/t/api/v2.0/verify") == .networkPath)
        #expect(refusal("//contoso.ciamlogin.com/t/api/v2.0/verify") == .networkPath)
        #expect(refusal("https://user@contoso.ciamlogin.com/t/api/v2.0/verify") == .userInfo)
        #expect(refusal("https://contoso.ciamlogin.com@evil.example/t/api/v2.0/verify") == .userInfo)
        #expect(refusal("/t/api/v2.0/verify#x") == .fragment)
        #expect(refusal("/t/api/v2.0/verify#") == .fragment)
    }

    @Test func blankAndMalformedHrefsAreRefused() {
        #expect(refusal("") == .blank)
        #expect(refusal("   ") == .blank)
        #expect(refusal("\n\t") == .blank)
        #expect(refusal(" /t/api/v2.0/verify") == .malformed)
        #expect(refusal("/t/api/v2.0/ver ify") == .malformed)
        #expect(refusal("/t/api/v2.0/verify\r\nX-Injected: 1") == .malformed)
        #expect(refusal("/t/api/v2.0/verify\\..\\x") == .malformed)
        #expect(refusal("/t/api/v2.0/%zz") == .malformed)
        #expect(refusal("/t/api/v2.0/%4") == .malformed)
        #expect(refusal("/t/api/v2.0/é") == .malformed)
        #expect(refusal("/t/api/v2.0/a\"b") == .malformed)
        #expect(refusal("/t/api/v2.0/<b>") == .malformed)
        #expect(refusal("api/v2.0/verify") == .malformed)
        #expect(refusal("?dc=x") == .malformed)
        #expect(refusal("/t/api/" + String(repeating: "a", count: V2HrefResolver.maximumLength)) == .malformed)
        #expect(refusal("https://[::1/t/api/x") == .malformed)
    }

    @Test func hrefsWithoutAnAPIOrOAuth2SegmentAreRefused() {
        #expect(refusal("/t/v2.0/verify") == .noAPISegment)
        #expect(refusal("/") == .noAPISegment)
        #expect(refusal("/t/api") == .noAPISegment)
        #expect(refusal("/t/x?next=/api/v2.0/verify") == .noAPISegment)
        #expect(refusal("https://contoso.ciamlogin.com") == .noAPISegment)
        #expect(refusal("https://contoso.ciamlogin.com?x=/api/") == .noAPISegment)
    }

    @Test func dotSegmentsAreRefused() {
        #expect(refusal("/t/api/../../evil/api/x") == .dotSegment)
        #expect(refusal("/t/api/./x") == .dotSegment)
        #expect(refusal("/t/api/%2e%2E/x") == .dotSegment)
        #expect(refusal("/t/api/x/..") == .dotSegment)
    }

    @Test func theAuthoritysPathKeepsItsOwnEncodingAndNoDoubleSlash() throws {
        let slashed = V2HrefResolver(authority: try #require(URL(string: "https://login.contoso.com/")))
        #expect(try slashed.resolve("/t/api/v2.0/x").url.absoluteString == "https://login.contoso.com/api/v2.0/x")
        let custom = V2HrefResolver(authority: try #require(URL(string: "https://login.contoso.com:8443/a%20b")))
        #expect(try custom.resolve("/t/api/x").url.absoluteString == "https://login.contoso.com:8443/a%20b/api/x")
        #expect(throws: V2HrefError.otherPort) { try custom.resolve("https://login.contoso.com/t/api/x") }
    }

    @Test func aLinksDescriptionShowsNoQuery() throws {
        let link = try resolver.resolve("/t/api/v2.0/x?session=abc")
        #expect(!"\(link)".contains("session"))
    }
}
