import Foundation
import LoopbackHTTP
import NativeAuth

/// `GET /codes`, `GET /codes/{address}`: the codes the tenant sent.
extension EmulatorControlAPI {
    func sentCodes(to address: String?) -> LoopbackHTTPResponse {
        let codes = tenant.outbox.filter { sent in address.map { Self.isSent(sent, to: $0) } ?? true }
        return Self.json(200, ["codes": .array(codes.map { .object(Self.codeObject($0)) })])
    }

    func lastCode(sentTo address: String) throws(Failure) -> LoopbackHTTPResponse {
        guard let sent = tenant.outbox.last(where: { Self.isSent($0, to: address) }) else {
            throw .notFound("No code was sent to \(address).")
        }
        return Self.json(200, Self.codeObject(sent))
    }

    /// Whether `sent` went to `address`, compared without regard to case.
    private static func isSent(_ sent: SentCode, to address: String) -> Bool {
        sent.to.lowercased() == address.lowercased()
    }

    private static func codeObject(_ sent: SentCode) -> JSONObject {
        [
            "to": .string(sent.to), "code": .string(sent.code), "purpose": .string(sent.purpose),
            "sentAt": .string(isoDate(sent.sentAt)),
        ]
    }
}
