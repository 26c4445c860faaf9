import Foundation
import LoopbackHTTP
import NativeAuth

/// `POST /reset`, `GET /snapshot`, `PUT /snapshot`: the tenant's state as a whole.
extension EmulatorControlAPI {
    func reset() -> LoopbackHTTPResponse {
        tenant.reset()
        try? tenant.restore(from: initialState)  // taken of this tenant, so it always fits
        return userCount()
    }

    func snapshot() -> LoopbackHTTPResponse {
        LoopbackHTTPResponse(status: 200, headers: Self.jsonHeaders, body: Array(tenant.snapshot()))
    }

    func restore(_ request: LoopbackHTTPRequest) throws(Failure) -> LoopbackHTTPResponse {
        do throws(EmulatorSnapshotError) {
            try tenant.restore(from: Data(request.body))
        } catch {
            let status = error.kind == .otherTenant ? 409 : 400
            throw Failure(status: status, error: "snapshot_\(error.kind.rawValue)", message: error.reason)
        }
        return userCount()
    }

    /// How many users the tenant has now.
    private func userCount() -> LoopbackHTTPResponse {
        Self.json(200, ["users": .integer(tenant.users.count)])
    }
}
