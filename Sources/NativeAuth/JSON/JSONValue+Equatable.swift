extension JSONValue {
    /// Equal when of the same kind with equal contents: numbers by value, objects member by
    /// member. Written out, and not inlined, because every comparison of claims, members or
    /// records otherwise carries its own copy of this recursive switch.
    @inline(never)
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let left), .string(let right)): left == right
        case (.number(let left), .number(let right)): left == right
        case (.bool(let left), .bool(let right)): left == right
        case (.array(let left), .array(let right)): left == right
        case (.object(let left), .object(let right)): left == right
        case (.null, .null): true
        default: false
        }
    }
}
