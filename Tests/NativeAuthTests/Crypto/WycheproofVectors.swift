import Foundation
import Testing

@testable import AuthCrypto

/// One Wycheproof signature-verification test, reduced to what the checks need.
struct WycheproofCase: Sendable {
    let id: Int
    let comment: String
    let message: [UInt8]
    let signature: [UInt8]
    /// "valid", "invalid" or "acceptable".
    let result: String
}

/// A group of Wycheproof tests sharing one public key, given as the file's hex members.
struct WycheproofGroup: Sendable {
    let key: [String: String]
    let tests: [WycheproofCase]
}

/// Project Wycheproof's vector files, copied unchanged into Tests/Vectors/Wycheproof (see the
/// README there for the commit and licence).
enum Wycheproof {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Vectors/Wycheproof")

    /// The groups of `file`, each group's key read from the member `keyMember` (an object of hex
    /// strings, such as `publicKey`).
    static func groups(_ file: String, keyMember: String = "publicKey") throws -> [WycheproofGroup] {
        let data = try Data(contentsOf: directory.appendingPathComponent(file))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let groups = try #require(document["testGroups"] as? [[String: Any]])
        return try groups.map { group in
            let key = try #require(group[keyMember] as? [String: Any]).compactMapValues { $0 as? String }
            let tests = try #require(group["tests"] as? [[String: Any]]).map { test in
                WycheproofCase(
                    id: try #require(test["tcId"] as? Int), comment: test["comment"] as? String ?? "",
                    message: bytes(hex: try #require(test["msg"] as? String)),
                    signature: bytes(hex: try #require(test["sig"] as? String)),
                    result: try #require(test["result"] as? String))
            }
            return WycheproofGroup(key: key, tests: tests)
        }
    }

    /// `bytes` without leading zeros, left-padded with zeros to `count`; `nil` when longer.
    static func fixed(_ bytes: [UInt8], count: Int) -> [UInt8]? {
        let trimmed = Array(bytes.drop { $0 == 0 })
        guard trimmed.count <= count else { return nil }
        return [UInt8](repeating: 0, count: count - trimmed.count) + trimmed
    }
}

/// How many vectors of each result a file held, and which did not behave as the file says.
struct VectorTally: Sendable {
    var counts: [String: Int] = [:]
    var failures: [String] = []

    mutating func record(_ test: WycheproofCase, verified: Bool, acceptableVerifies: Bool = false) {
        counts[test.result, default: 0] += 1
        let expected: Bool
        switch test.result {
        case "valid": expected = true
        case "acceptable": expected = acceptableVerifies
        default: expected = false
        }
        if verified != expected { failures.append("tcId \(test.id) (\(test.result)): \(test.comment)") }
    }
}
