import Catalog

/// In which order a first scan looks at a folder's files, so that its first images are listed at once
/// and every id still comes out as one scan of the whole folder binds it (docs/ids.md).
///
/// Binding 100,000 names at once takes about a second before anything can be listed. But in a catalog
/// that has bound nothing yet, a name whose slug no earlier name (in byte order) shares gets that plain
/// slug whatever the rest of the folder holds: a whole binding gives plain slugs first, in byte order,
/// and nothing else can have taken it. Those are looked at first, bound a batch at a time; the others,
/// whose ids (`-jpg`, `-2`...) depend on every plain slug, are bound together after them. With a catalog
/// that has bindings already (a restart's, another replica's, ids kept from before), the whole folder
/// is bound first, as before.
struct FirstScanOrder {
    /// Names to look at, part after part.
    let parts: [[String]]
    /// The index of the part before which the whole folder's names are bound together.
    let wholeBindingBefore: Int

    init(_ names: [String], catalogIsEmpty: Bool) {
        let sorted = names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        guard catalogIsEmpty else {
            parts = [sorted]
            wholeBindingBefore = 0
            return
        }
        var slugs: Set<String> = []
        var plain: [String] = []
        var rest: [String] = []
        for name in sorted {
            if slugs.insert(ImageID.slug(of: name)).inserted { plain.append(name) } else { rest.append(name) }
        }
        parts = [plain, rest]
        wholeBindingBefore = 1
    }
}
