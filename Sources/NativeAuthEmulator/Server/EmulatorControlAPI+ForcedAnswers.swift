import Foundation
import LoopbackHTTP
import NativeAuth

/// `POST /force`: the answers forced on the next calls to an endpoint.
extension EmulatorControlAPI {
    func force(_ request: LoopbackHTTPRequest) throws(Failure) -> LoopbackHTTPResponse {
        let body = try ControlFields(request: request)
        let name = try body.string("endpoint")
        let trimmed = name.hasPrefix("/") ? String(name.dropFirst()) : name
        guard
            let endpoint = EmulatorEndpoint.allCases.first(where: {
                $0.rawValue == trimmed || String(describing: $0) == trimmed
            })
        else {
            let known = EmulatorEndpoint.allCases.map(\.rawValue).joined(separator: ", ")
            throw .badRequest("endpoint \(name) is not one of: \(known).")
        }
        let times = try body.optionalInteger("times") ?? 1
        guard (1...1000).contains(times) else { throw .badRequest("times must be from 1 to 1000.") }
        let answer = try Self.forcedAnswer(body.value("answer"), path: "answer")
        tenant.force(answer, on: endpoint, times: times)
        return Self.json(200, ["endpoint": .string(endpoint.rawValue), "times": .integer(times)])
    }

    /// A forced answer from its JSON: a kind name (`"networkFailure"`) or an object with `kind`
    /// and the kind's fields.
    static func forcedAnswer(_ value: JSON?, path: String) throws(Failure) -> ForcedAnswer {
        let fields: ControlFields
        let kind: String
        switch value {
        case .string(let name)?:
            fields = ControlFields(JSONObject(), path: path)
            kind = name
        case .object(let object)?:
            fields = ControlFields(object, path: path)
            kind = try fields.string("kind")
        default:
            throw .badRequest("\(path) is missing, or neither a kind name nor an object with a kind.")
        }
        switch kind {
        case "error":
            return .error(
                try fields.string("error"), suberror: try fields.optionalString("suberror"),
                codes: try fields.array("codes").enumerated().map { (index, code) throws(Failure) -> Int in
                    guard case .integer(let number) = code else {
                        throw .badRequest("\(path).codes[\(index)] is not a whole number.")
                    }
                    return number
                },
                description: try fields.optionalString("description"),
                status: try fields.status("status", default: 400))
        case "redirect":
            return .redirect(
                reason: try fields.optionalString("reason") ?? "The tenant requires a browser-based sign-in.")
        case "raw":
            return .raw(
                status: try fields.status("status", default: 200), headers: try fields.stringMap("headers"),
                body: Data((try fields.optionalString("body") ?? "").utf8))
        case "networkFailure": return .networkFailure
        case "timeout": return .timeout
        case "cannotConnect": return .cannotConnect
        case "lostAfterProcessing": return .lostAfterProcessing
        case "tooManyRequests": return .tooManyRequests(retryAfter: try fields.optionalInteger("retryAfter"))
        case "serviceUnavailable": return .serviceUnavailable(retryAfter: try fields.optionalInteger("retryAfter"))
        case "truncatedAfterProcessing":
            return .truncatedAfterProcessing(keepingBytes: try fields.optionalInteger("keepingBytes") ?? 0)
        default:
            throw .badRequest(
                "\(path) kind \(kind) is not one of: error, redirect, raw, networkFailure, timeout, cannotConnect, "
                    + "lostAfterProcessing, tooManyRequests, serviceUnavailable, truncatedAfterProcessing.")
        }
    }
}
