import AuthSupport
public import NativeAuth

extension EmulatedTenant {
    /// The clock the tenant was created with: the one its tokens, codes and `Date` headers follow.
    ///
    /// When it is a ``ManualClock``, move it to expire codes and tokens:
    /// `(tenant.clock as? ManualClock)?.advance(by: 3600)`.
    public var clock: any NativeAuthClock {
        state.withLock { $0.environment.clock }
    }

    /// The tenant's ``clock``: a `WebAuthClient` on the system clock reads the tenant's time from
    /// it, so its ID-token and DPoP time checks agree with the tenant's whatever time a
    /// ``ManualClock`` was set to.
    public var serverClock: any NativeAuthClock { clock }

    /// Forgets everything the tenant holds but its settings: users, refresh tokens, flows under
    /// way, the ``outbox``, ``receivedRequests`` and forced answers. The tenant is then as it was
    /// created, with the ``settings`` it has now.
    public func reset() {
        state.withLock { state in
            let settings = state.settings
            state = TenantState(environment: state.environment)
            state.settings = settings
        }
    }
}

extension EmulatedTenant {
    /// Every user of the tenant, in their current state, sorted by lowercased username.
    public var users: [EmulatedUser] {
        state.withLock { state in state.users.sorted { $0.key < $1.key }.map(\.value) }
    }
}
