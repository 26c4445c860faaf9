// swift-format-ignore-file
// snippet: tokens-fetch-orders
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NativeAuth

func fetchOrders(account: UserAccountResult, url: URL) async throws -> Data {
    let token = try await account.getAccessToken(scopes: ["api://contoso/orders.read"])
    var request = URLRequest(url: url)
    request.setValue("Bearer \(token.accessToken)", forHTTPHeaderField: "Authorization")
    let (data, _) = try await URLSession.shared.data(for: request)
    return data
}
// snippet: end

// The formatter leaves this file alone: the sample keeps its imports in their order.
