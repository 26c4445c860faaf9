import AuthSupport
import Foundation

/// Everything a client's flows share; states hold on to it.
final class ClientCore: Sendable {
    let configuration: NativeAuthConfiguration
    let wire: WireClient
    /// Builds the requests of native authentication V2; they go through ``wire``'s pipeline.
    let v2Builder: V2RequestBuilder
    let accounts: AccountManager
    let log: Log
    let events = SessionEventHub()
    /// The tenant as a web provider, for browser sign-in; made on first use.
    let browserProvider = Locked<WebProvider?>(nil)

    init(configuration: NativeAuthConfiguration, transport: any HTTPTransport, credentialStore: any CredentialStore) {
        self.configuration = configuration
        log = Log(logger: configuration.logger)
        wire = WireClient(
            pipeline: RequestPipeline(
                transport: transport, interceptors: configuration.requestInterceptors, log: log,
                retry: RetryPolicy(clock: configuration.clock, maximumWait: configuration.maximumRetryWait),
                requestTimeout: configuration.requestTimeout),
            builder: RequestBuilder(configuration: configuration))
        v2Builder = V2RequestBuilder(configuration: configuration)
        accounts = AccountManager(
            configuration: configuration, store: credentialStore, redeemer: NativeRefreshRedeemer(wire: wire), log: log,
            events: events)
    }

    func flow(username: String, scopes: [String], correlationId: UUID?) -> FlowContext {
        FlowContext(client: self, correlationId: correlationId ?? UUID(), username: username, scopes: scopes)
    }
}
