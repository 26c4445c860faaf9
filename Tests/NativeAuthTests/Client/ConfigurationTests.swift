import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("Configuration accepts every authority form and refuses bad input clearly", .hangLimit)
struct ConfigurationTests {
    func authority(_ text: String) throws -> String {
        try NativeAuthConfiguration(clientId: "c", authority: URL(string: text)!).authority.absoluteString
    }

    @Test func authorityForms() throws {
        #expect(
            try authority("https://contoso.ciamlogin.com/contoso.onmicrosoft.com")
                == "https://contoso.ciamlogin.com/contoso.onmicrosoft.com")
        #expect(
            try authority("https://contoso.ciamlogin.com/") == "https://contoso.ciamlogin.com/contoso.onmicrosoft.com")
        #expect(
            try authority("https://contoso.ciamlogin.com") == "https://contoso.ciamlogin.com/contoso.onmicrosoft.com")
        #expect(
            try authority("https://contoso.ciamlogin.com/aaaabbbb-0000-1111-2222-333344445555/")
                == "https://contoso.ciamlogin.com/aaaabbbb-0000-1111-2222-333344445555")
        #expect(try authority("HTTPS://Contoso.CIAMLogin.com/x") == "https://contoso.ciamlogin.com/x")
    }

    @Test func customDomains() throws {
        #expect(
            try authority("https://login.contoso.com/aaaabbbb-0000-1111-2222-333344445555")
                == "https://login.contoso.com/aaaabbbb-0000-1111-2222-333344445555")
        #expect(try authority("https://auth.example.org") == "https://auth.example.org")
        #expect(try authority("https://auth.example.org:8443/t") == "https://auth.example.org:8443/t")
    }

    @Test func httpOnlyForLoopback() throws {
        #expect(try authority("http://127.0.0.1:8080/tenant") == "http://127.0.0.1:8080/tenant")
        #expect(try authority("http://localhost:9/t") == "http://localhost:9/t")
        #expect(try authority("http://[::1]:9/t") == "http://[::1]:9/t")
        do {
            _ = try authority("http://contoso.ciamlogin.com/x")
            Issue.record("http to a remote host must fail")
        } catch let error as NativeAuthConfigurationError {
            #expect(error.isInvalidAuthority)
            #expect(error.description.contains("https"))
        }
    }

    @Test(arguments: [
        "ftp://contoso.ciamlogin.com/x", "https://contoso.ciamlogin.com/x?query=1", "https://contoso.ciamlogin.com/x#f",
        "https://user:pw@contoso.ciamlogin.com/x", "https://.ciamlogin.com/", "https://a.b.ciamlogin.com/",
        "contoso.ciamlogin.com/x", "/relative/path",
    ])
    func invalidAuthorities(text: String) throws {
        let url = try #require(URL(string: text), "every case must be a URL the SDK gets to check")
        #expect(throws: NativeAuthConfigurationError.self) {
            try NativeAuthConfiguration(clientId: "c", authority: url)
        }
    }

    @Test func aMultiLabelCIAMHostIsNamedAsSuch() throws {
        let url = try #require(URL(string: "https://contoso.eu.ciamlogin.com/contoso.onmicrosoft.com"))
        let error = try #require(throws: NativeAuthConfigurationError.self) {
            try NativeAuthConfiguration(clientId: "c", authority: url)
        }
        #expect(error.isInvalidAuthority)
        #expect(error.description.contains("'contoso.eu'"))
        #expect(error.description.contains("exactly one label"))
    }

    @Test func tenantSubdomain() throws {
        let configuration = try NativeAuthConfiguration(clientId: "c", tenantSubdomain: "Contoso")
        #expect(configuration.authority.absoluteString == "https://contoso.ciamlogin.com/contoso.onmicrosoft.com")
        for bad in ["", "-x", "x-", "a.b", "a b", String(repeating: "a", count: 64), "ü"] {
            #expect(throws: NativeAuthConfigurationError.self) {
                try NativeAuthConfiguration(clientId: "c", tenantSubdomain: bad)
            }
        }
    }

    @Test func clientIdAndChallengeTypes() throws {
        do {
            _ = try NativeAuthConfiguration(clientId: "  ", tenantSubdomain: "contoso")
            Issue.record("empty client id must fail")
        } catch {
            #expect(error.isInvalidClientId)
        }
        #expect(throws: NativeAuthConfigurationError.self) {
            try NativeAuthConfiguration(clientId: "a b", tenantSubdomain: "contoso")
        }
        #expect(throws: NativeAuthConfigurationError.self) {
            try NativeAuthConfiguration(clientId: "c", tenantSubdomain: "contoso", challengeTypes: [])
        }
    }

    @Test func customHeaders() throws {
        let ok = try NativeAuthConfiguration(
            clientId: "c", tenantSubdomain: "contoso", customHeaders: ["X-Trace-Id": "1"])
        #expect(ok.customHeaders == ["X-Trace-Id": "1"])
        // Every token character of RFC 9110 §5.6.2 may appear in a name.
        let symbols = try NativeAuthConfiguration(
            clientId: "c", tenantSubdomain: "contoso", customHeaders: ["x-Az09!#$%&'*+-.^_`|~": "1"])
        #expect(symbols.customHeaders.count == 1)
        for reserved in ["x-ms-foo", "X-Client-SKU", "x-broker-a", "x-app-name"] {
            do {
                _ = try NativeAuthConfiguration(
                    clientId: "c", tenantSubdomain: "contoso", customHeaders: [reserved: "v"])
                Issue.record("\(reserved) must be refused")
            } catch {
                #expect(error.isInvalidHeader)
                #expect(error.description.contains("reserved"))
            }
        }
        for bad in ["Authorization", "x-", "x-a b", "trace", "x-ü", "x-a:b", "x-a\"b", "x-(a)", "x-a@b"] {
            #expect(throws: NativeAuthConfigurationError.self) {
                try NativeAuthConfiguration(clientId: "c", tenantSubdomain: "contoso", customHeaders: [bad: "v"])
            }
        }
        #expect(throws: NativeAuthConfigurationError.self) {
            try NativeAuthConfiguration(
                clientId: "c", tenantSubdomain: "contoso", customHeaders: ["x-a": "line\r\nInjected: 1"])
        }
    }
}
