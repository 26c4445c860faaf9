import Foundation
import LoopbackHTTP
import NativeAuth

/// The fields of one JSON object of a control call, read with errors that say which field is wrong.
struct ControlFields {
    let object: JSONObject
    let prefix: String

    init(_ object: JSONObject, path: String) {
        self.object = object
        self.prefix = path
    }

    init(_ value: JSON, path: String) throws(EmulatorControlAPI.Failure) {
        guard case .object(let object) = value else { throw .badRequest("\(path) is not an object.") }
        self.init(object, path: path)
    }

    /// The body of `request`, which must be one JSON object.
    init(request: LoopbackHTTPRequest) throws(EmulatorControlAPI.Failure) {
        guard !request.body.isEmpty else { throw .badRequest("The call needs a JSON object as its body.") }
        let text = String(decoding: request.body, as: UTF8.self)
        let value: JSON
        do throws(JSONParser.Failure) {
            value = try JSONParser.parse(text)
        } catch {
            throw .badRequest("The body is not JSON (error at byte \(error.offset)).")
        }
        guard case .object(let object) = value else { throw .badRequest("The body is not a JSON object.") }
        self.init(object, path: "")
    }

    private func path(_ key: String) -> String {
        prefix.isEmpty ? key : "\(prefix).\(key)"
    }

    func value(_ key: String) -> JSON? {
        object[key]
    }

    /// A required, non-empty string.
    func string(_ key: String) throws(EmulatorControlAPI.Failure) -> String {
        guard case .string(let value)? = object[key], !value.isEmpty else {
            throw .badRequest("\(path(key)) is missing or not a non-empty string.")
        }
        return value
    }

    func optionalString(_ key: String) throws(EmulatorControlAPI.Failure) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw .badRequest("\(path(key)) is not a string.")
        }
    }

    /// `false` when absent.
    func bool(_ key: String) throws(EmulatorControlAPI.Failure) -> Bool {
        switch object[key] {
        case nil, .null?: return false
        case .bool(let value)?: return value
        default: throw .badRequest("\(path(key)) is not true or false.")
        }
    }

    func optionalInteger(_ key: String) throws(EmulatorControlAPI.Failure) -> Int? {
        switch object[key] {
        case nil, .null?: return nil
        case .integer(let value)?: return value
        case .double(let value)? where value == value.rounded() && abs(value) < 1e15: return Int(value)
        default: throw .badRequest("\(path(key)) is not a whole number.")
        }
    }

    /// A required number.
    func number(_ key: String) throws(EmulatorControlAPI.Failure) -> Double {
        switch object[key] {
        case .integer(let value)?: return Double(value)
        case .double(let value)?: return value
        default: throw .badRequest("\(path(key)) is missing or not a number.")
        }
    }

    /// An HTTP status from 200 to 599, or `fallback` when absent.
    func status(_ key: String, default fallback: Int) throws(EmulatorControlAPI.Failure) -> Int {
        let status = try optionalInteger(key) ?? fallback
        guard (200...599).contains(status) else { throw .badRequest("\(path(key)) must be from 200 to 599.") }
        return status
    }

    /// An array, empty when absent.
    func array(_ key: String) throws(EmulatorControlAPI.Failure) -> [JSON] {
        switch object[key] {
        case nil, .null?: return []
        case .array(let values)?: return values
        default: throw .badRequest("\(path(key)) is not an array.")
        }
    }

    /// An array of strings, empty when absent.
    func stringArray(_ key: String) throws(EmulatorControlAPI.Failure) -> [String] {
        var strings: [String] = []
        for (index, element) in try array(key).enumerated() {
            guard case .string(let value) = element else {
                throw .badRequest("\(path(key))[\(index)] is not a string.")
            }
            strings.append(value)
        }
        return strings
    }

    /// Refuses an object with a member not in `known`, naming every such member: a setting the
    /// call does not know is never dropped in silence.
    func refuseUnknownMembers(known: [String]) throws(EmulatorControlAPI.Failure) {
        let unknown = object.keys.filter { !known.contains($0) }
        guard !unknown.isEmpty else { return }
        let names = unknown.map { name in
            path(name.count > 64 ? String(name.prefix(64)) + "…" : name)
        }.joined(separator: ", ")
        let what = prefix.isEmpty ? "The body" : prefix
        throw .badRequest(
            "\(what) has \(unknown.count == 1 ? "a member" : "members") this call does not know: \(names) "
                + "(it knows \(known.joined(separator: ", "))).")
    }

    /// An object of string values, empty when absent.
    func stringMap(_ key: String) throws(EmulatorControlAPI.Failure) -> [String: String] {
        switch object[key] {
        case nil, .null?:
            return [:]
        case .object(let map)?:
            var result: [String: String] = [:]
            for pair in map.pairs {
                guard case .string(let value) = pair.value else {
                    throw .badRequest("\(path(key)).\(pair.key) is not a string.")
                }
                result[pair.key] = value
            }
            return result
        default:
            throw .badRequest("\(path(key)) is not an object.")
        }
    }
}
