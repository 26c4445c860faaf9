import Foundation

/// Walks everything `Mirror` reaches from a value, the way a debugger, `dump` or a crash reporter
/// would: every child, every superclass's children, each object once. At every node it casts the
/// value to each type a secret can live in (`String`, `Substring`, `Data`, `[UInt8]`) and records
/// where a secret was found.
struct ReflectionWalk {
    /// The secrets looked for, as text and as bytes.
    let secrets: [String]
    let secretBytes: [Data]
    /// A value that is not secret and that the walk must reach, to show it is not blind.
    let marker: String

    private(set) var leaks: [String] = []
    private(set) var nodes = 0
    private(set) var markerSeen = false
    private var objects = Set<ObjectIdentifier>()

    init(secrets: [String], secretBytes: [Data] = [], marker: String) {
        self.secrets = secrets.filter { $0.count >= 4 }
        self.secretBytes = secretBytes.filter { $0.count >= 16 }
        self.marker = marker
    }

    mutating func walk(_ value: Any, path: String) {
        walk(value, path: path, depth: 0)
    }

    private mutating func walk(_ value: Any, path: String, depth: Int) {
        nodes += 1
        guard depth < 80, nodes < 2_000_000 else { return }
        check(value, path: path)
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .class, type(of: value) is AnyClass {
            let id = ObjectIdentifier(value as AnyObject)
            guard objects.insert(id).inserted else { return }
        }
        var current: Mirror? = mirror
        while let level = current {
            for (index, child) in level.children.enumerated() {
                walk(child.value, path: "\(path).\(child.label ?? "\(index)")", depth: depth + 1)
            }
            current = level.superclassMirror
        }
    }

    private mutating func check(_ value: Any, path: String) {
        var texts: [String] = []
        var bytes: [Data] = []
        if let string = value as? String { texts.append(string) }
        if let substring = value as? Substring { texts.append(String(substring)) }
        if let data = value as? Data { bytes.append(data) }
        if let array = value as? [UInt8] { bytes.append(Data(array)) }
        for data in bytes { texts.append(String(decoding: data, as: UTF8.self)) }
        for text in texts {
            if text.contains(marker) { markerSeen = true }
            for secret in secrets where text.contains(secret) {
                leaks.append("\(path): a secret (\(secret.prefix(6))…)")
            }
        }
        for data in bytes {
            for secret in secretBytes where data.range(of: secret) != nil {
                leaks.append("\(path): secret bytes")
            }
        }
    }
}
