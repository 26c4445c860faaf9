/// Names in ascending order. Every ordered listing of names or dictionary keys in the SDK goes
/// through this one sort of strings, so it is compiled once.
@inline(never)
func ascending(_ names: [String]) -> [String] { names.sorted() }

extension Dictionary where Key == String {
    /// The keys in ascending order.
    var sortedKeys: [String] { ascending(Array(keys)) }
}
