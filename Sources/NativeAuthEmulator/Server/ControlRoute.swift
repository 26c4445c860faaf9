/// One call of the control API: a method and a path under ``EmulatorServer/controlPath``.
///
/// The router answers exactly these: a request is matched against the paths of every case, and
/// answered `404` when none fits, `405` when one fits with another method. So the list is the
/// control API, and Docs/EmulatorServer.md is checked against it.
enum ControlRoute: CaseIterable, Sendable {
    case root, info
    case listUsers, createUser, readUser, deleteUser, challengeNextRefresh
    case listCodes, lastCode
    case force
    case readClock, advanceClock
    case readSettings, changeSettings
    case reset
    case readSnapshot, putSnapshot, postSnapshot

    var method: String {
        switch self {
        case .createUser, .challengeNextRefresh, .force, .advanceClock, .reset, .postSnapshot: "POST"
        case .deleteUser: "DELETE"
        case .changeSettings: "PATCH"
        case .putSnapshot: "PUT"
        default: "GET"
        }
    }

    /// The path's segments after the control path; `{name}` stands for any one segment.
    var pattern: [String] {
        switch self {
        case .root: []
        case .info: ["info"]
        case .listUsers, .createUser: ["users"]
        case .readUser, .deleteUser: ["users", "{username}"]
        case .challengeNextRefresh: ["users", "{username}", "challenge-next-refresh"]
        case .listCodes: ["codes"]
        case .lastCode: ["codes", "{address}"]
        case .force: ["force"]
        case .readClock: ["clock"]
        case .advanceClock: ["clock", "advance"]
        case .readSettings, .changeSettings: ["settings"]
        case .reset: ["reset"]
        case .readSnapshot, .putSnapshot, .postSnapshot: ["snapshot"]
        }
    }

    /// The whole path, as the documentation writes it: `/emulator/v1/users/{username}`.
    var path: String {
        EmulatorServer.controlPath + pattern.map { "/" + $0 }.joined()
    }

    /// Whether the decoded path segments `segments` fit ``pattern``.
    func matches(_ segments: [String]) -> Bool {
        guard segments.count == pattern.count else { return false }
        return zip(pattern, segments).allSatisfy { part, segment in part.hasPrefix("{") || part == segment }
    }
}
