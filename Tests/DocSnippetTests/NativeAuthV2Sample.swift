import NativeAuth

func makeV2Client() throws -> NativeAuthClient {
    // snippet: native-auth-v2-configuration
    var configuration = try NativeAuthConfiguration(clientId: "00000000-…", tenantSubdomain: "contoso")
    configuration.protocolVersion = .v2  // Microsoft marks V2 as experimental
    let client = NativeAuthClient(configuration: configuration)
    // snippet: end
    return client
}
