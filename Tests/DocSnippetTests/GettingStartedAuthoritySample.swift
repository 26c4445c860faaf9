// snippet: getting-started-configuration-authority
import Foundation
import NativeAuth

func makeConfiguration() throws -> NativeAuthConfiguration {
    guard let authority = URL(string: "https://contoso.ciamlogin.com/contoso.onmicrosoft.com") else {
        throw URLError(.badURL)
    }
    return try NativeAuthConfiguration(clientId: "00000000-0000-0000-0000-000000000000", authority: authority)
}
// snippet: end
