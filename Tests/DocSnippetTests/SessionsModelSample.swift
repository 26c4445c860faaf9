// snippet: sessions-model
import NativeAuth
import Observation

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
@Observable
final class SessionModel {
    enum Phase: Equatable {
        case loading
        case signedOut(sessionExpired: Bool)
        case signedIn(Account)
        case storeUnavailable
    }

    private(set) var phase = Phase.loading
    let client: NativeAuthClient

    init(client: NativeAuthClient) {
        self.client = client
    }

    /// Restores the account, then follows the session until the calling task is cancelled.
    func run() async {
        let events = client.sessionEvents()  // before restoring, so no event is missed
        await restore()
        for await event in events {
            switch event {
            case .signedIn(let account):
                phase = .signedIn(account)
            case .signedOut(_, let reason):
                phase = .signedOut(sessionExpired: reason == .sessionExpired)
            case .tokenRefreshed:
                break
            @unknown default:
                break
            }
        }
    }

    /// Reads the signed-in account; call it again after `.storeUnavailable`.
    func restore() async {
        do {
            if let account = try await client.currentAccount() {
                phase = .signedIn(account.account)
            } else {
                phase = .signedOut(sessionExpired: false)
            }
        } catch {
            phase = .storeUnavailable  // not a sign-out: the store cannot be read yet
        }
    }
}
// snippet: end
