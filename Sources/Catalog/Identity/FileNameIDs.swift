/// File name -> image id, as two parallel arrays sorted by name: `FileIdentities`' cache of every
/// binding, one per image of the folder.
///
/// A dictionary of 100,000 names rounds its table up to 262,144 slots of two strings, ~84 bytes per
/// image; the sorted arrays cost 32 (docs/gallery-scale.md). Bindings are added in batches (a scan's new
/// names) and never removed, so keeping them sorted costs little; a lookup is a binary search.
struct FileNameIDs {
    /// Sorted by `<`, no name twice.
    private var names: [String] = []
    /// `ids[i]` is the id of `names[i]`.
    private var ids: [String] = []

    var isEmpty: Bool { names.isEmpty }

    var count: Int { names.count }

    subscript(name: String) -> String? {
        let at = position(of: name)
        return at < names.count && names[at] == name ? ids[at] : nil
    }

    /// Adds `bindings`: a name already here, or twice in `bindings`, keeps its first id.
    mutating func add(_ bindings: [(name: String, id: String)]) {
        if bindings.count == 1, let (name, id) = bindings.first {
            let at = position(of: name)
            guard at == names.count || names[at] != name else { return }
            names.insert(name, at: at)
            ids.insert(id, at: at)
            return
        }
        var merged = zip(names, ids).map { (name: $0, id: $1) }
        var adding: Set<String> = []
        merged += bindings.filter { self[$0.name] == nil && adding.insert($0.name).inserted }
        merged.sort { $0.name < $1.name }
        names = merged.map(\.name)
        ids = merged.map(\.id)
    }

    /// The first position whose name is not before `name` (binary search).
    private func position(of name: String) -> Int {
        var low = 0
        var high = names.count
        while low < high {
            let middle = low + (high - low) / 2
            if names[middle] < name { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
