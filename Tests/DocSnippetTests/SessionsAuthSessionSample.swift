// swift-format-ignore-file
#if canImport(SwiftUI)
// snippet: sessions-swiftui-root
import NativeAuth
import SwiftUI

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
struct RootView: View {
    let client: NativeAuthClient
    @State private var session: AuthSession

    init(client: NativeAuthClient) {
        self.client = client
        _session = State(initialValue: AuthSession(client: client))
    }

    var body: some View {
        if session.isRestoring {
            ProgressView()
        } else if let account = session.account {
            HomeView(account: account, signOut: { Task { await session.signOut() } })
        } else if session.storeError != nil {
            Button("Unlock the device, then tap to continue") {
                Task { await session.restore() }
            }
        } else {
            SignInView(client: client, sessionExpired: session.lastEvent.map(\.endedTheSession) ?? false)
        }
    }
}

extension SessionEvent {
    /// Whether this is a sign-out because the session ended on the server.
    var endedTheSession: Bool {
        if case .signedOut(_, .sessionExpired) = self { true } else { false }
    }
}
// snippet: end

/// The app's own screens, which the sample names.
struct HomeView: View {
    let account: UserAccountResult
    let signOut: () -> Void
    var body: some View { Button("Sign out", action: signOut) }
}

struct SignInView: View {
    let client: NativeAuthClient
    let sessionExpired: Bool
    var body: some View { Text(sessionExpired ? "Please sign in again." : "Sign in") }
}
#endif
