import Foundation
import HTTPServer
import Synchronization

/// The browser client's modules in one answer: `GET /js/modules.json` is a JSON object from the path of every `.js`
/// file under the public folder's `js/` (`"js/main.js"`) to its source. The gallery page makes each a module of its
/// own from a blob, its relative imports rewritten to name the other modules' blobs (the module pack loader in
/// index.html), so the page needs one request for its forty modules: over HTTP/1.1's six connections they came in
/// waves of six, a round trip each, and on a 150 ms connection the first picture waited for the last wave
/// (docs/benchmarks.md). The modules stay files too: a page or an embed that imports them by URL gets the same code.
///
/// `?entries=js/main.js,...` limits the pack to those modules and what they import statically, at any depth: the
/// gallery page asks for its first module's graph (seven small modules) beside the whole pack, so that its first step
/// (the requests for the base tile and the preview) runs before the whole pack is in.
///
/// Each module is its file with its comment lines left blank (`blankingCommentLines`): the client's comments are two
/// fifths of its bytes after compression (65 KB -> 40 KB), and a blank line keeps every other line's number, so that
/// an error's line is the file's. Built again only when a file under `js/` changes (the list of paths, sizes and
/// modification times); compressed once per version for a client that takes deflate.
final class ModulePack: Sendable {
    private struct Built {
        let etag: DocumentETag
        let plain: SharedBytes
        let deflated: SharedBytes?
    }

    /// The files' sources as one version of them, read once (`stamp`), and the packs made from them: the whole pack
    /// under the key "", each pack limited to entries under their list.
    private struct Version {
        let stamp: String
        let sources: [String: String]
        var packs: [String: Built]
    }

    private let kept = Mutex<Version?>(nil)
    static let maximumEntries = 16
    /// Packs kept of one version: lists of entries are the pages' own, but any client may ask for others.
    static let packsKept = 8
    /// A pack larger than this is not made (the page then loads its modules one by one): the client's is 220 KB.
    static let largest = 4 << 20
    static let path = ["js", "modules.json"]

    /// The pack's answer, or nil if the folder has no module or one cannot be read as UTF-8 text. Throws a 404 for
    /// an `entries` list that names no module of the pack, or more than `maximumEntries`.
    func answer(publicFolder: String, request: Request) throws -> Response? {
        let entries = try Self.entries(request.query["entries"])
        guard let built = try current(publicFolder: publicFolder, entries: entries) else { return nil }
        let deflate = built.deflated != nil && DeflatedFiles.accepted(by: request)
        let tag = deflate ? TilescopeApp.deflatedTag(built.etag.text) : built.etag.text
        return TilescopeApp.textAnswer(type: "application/json", tag: tag, deflated: deflate, request: request,
                                       bytes: { deflate ? built.deflated : built.plain })
    }

    /// The entries a request names, sorted and without repeats; empty for the whole pack.
    static func entries(_ text: String?) throws -> [String] {
        guard let text else { return [] }
        let entries = Set(text.split(separator: ",", omittingEmptySubsequences: false).map(String.init))
        guard entries.count <= maximumEntries, !entries.contains("") else {
            throw APIError.notFound("entries: at most \(maximumEntries) module paths such as js/main.js, by commas")
        }
        return entries.sorted()
    }

    private func current(publicFolder: String, entries: [String]) throws -> Built? {
        let files = Self.modules(under: publicFolder)
        guard !files.isEmpty else { return nil }
        let stamp = files.map { "\($0.path) \($0.stamp)" }.joined(separator: "\n")
        let key = entries.joined(separator: ",")
        let known = kept.withLock { $0 }.flatMap { $0.stamp == stamp ? $0 : nil }
        if let built = known?.packs[key] { return built }
        guard let all = known?.sources ?? Self.sources(of: files, in: publicFolder) else { return nil }
        var sources = all
        if !entries.isEmpty {
            let missing = entries.filter { sources[$0] == nil }
            guard missing.isEmpty else { throw APIError.notFound("entries: no such module in the pack: \(missing)") }
            let graph = Self.staticGraph(of: entries, in: sources)
            sources = sources.filter { graph.contains($0.key) }
        }
        guard let json = try? JSONSerialization.data(withJSONObject: sources, options: [.sortedKeys]) else { return nil }
        let plain = [UInt8](json)
        let built = Built(etag: DocumentETag(.modulePack, body: plain), plain: SharedBytes(copying: plain),
                          deflated: DeflatedFiles.deflate(plain).map { SharedBytes(copying: $0) })
        kept.withLock { version in
            // A newer version of the files replaces the older one and every pack made from it.
            if version?.stamp != stamp { version = Version(stamp: stamp, sources: all, packs: [:]) }
            if version!.packs.count >= Self.packsKept { version!.packs = [:] }
            version!.packs[key] = built
        }
        return built
    }

    /// Each file's source, its comment lines left blank; nil if one cannot be read as UTF-8 text or all would pass
    /// `largest`.
    private static func sources(of files: [(path: String, stamp: String)], in publicFolder: String) -> [String: String]? {
        var sources: [String: String] = [:]
        var total = 0
        for file in files {
            guard let data = FileManager.default.contents(atPath: publicFolder + "/" + file.path),
                  let text = String(data: data, encoding: .utf8) else { return nil }
            total += data.count
            guard total <= largest else { return nil }
            sources[file.path] = blankingCommentLines(text)
        }
        return sources
    }

    /// `entries` and every module they import statically (`import ... from './x.js'`, `import './x.js'`), at any
    /// depth, among `sources`; imports of paths that are not modules of the pack are left out (the page then loads
    /// them as files). Not `import('./x.js')`: a module imported on demand comes with the whole pack.
    static func staticGraph(of entries: [String], in sources: [String: String]) -> Set<String> {
        var seen = Set<String>()
        var todo = entries
        while let path = todo.popLast() {
            guard !seen.contains(path), let text = sources[path] else { continue }
            seen.insert(path)
            let range = NSRange(text.startIndex..., in: text)
            for match in staticImport.matches(in: text, range: range) {
                guard let found = Range(match.range(at: 1), in: text) else { continue }
                if let target = resolved(String(text[found]), from: path), sources[target] != nil { todo.append(target) }
            }
        }
        return seen
    }

    /// A static import's specifier, relative and single-quoted as the client's modules write them (the page's loader
    /// rewrites only those: Tests/browser/test_module_pack.py holds every module to it).
    private static let staticImport = try! NSRegularExpression(
        pattern: #"(?:\bfrom\s*|^\s*import\s*)'(\.\.?/[^'\n]*)'"#, options: [.anchorsMatchLines])

    /// A relative specifier from the module at `path`, as a path of the pack; nil if it climbs out of the folder.
    static func resolved(_ specifier: String, from path: String) -> String? {
        var parts = path.split(separator: "/").dropLast().map(String.init)
        for part in specifier.split(separator: "/", omittingEmptySubsequences: false) {
            switch part {
            case ".": continue
            case "..": if parts.popLast() == nil { return nil }
            default: parts.append(String(part))
            }
        }
        return parts.joined(separator: "/")
    }

    /// Every regular `.js` file under `js/`, by its path from the public folder and its stamp (size and modification
    /// time), in path order. Symbolic links and dot-led names are left out, as the static files' plain names are.
    static func modules(under publicFolder: String) -> [(path: String, stamp: String)] {
        var found: [(path: String, stamp: String)] = []
        var folders = ["js"]
        while let folder = folders.popLast() {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: publicFolder + "/" + folder) else {
                continue
            }
            for name in names where TilescopeApp.isPlainName(name) {
                let path = folder + "/" + name
                var info = stat()
                guard lstat(publicFolder + "/" + path, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFDIR: folders.append(path)
                case S_IFREG where name.hasSuffix(".js"):
                    found.append((path, "\(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"))
                default: break
                }
            }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// `source` with every line that is only a comment made empty: a line that starts with `//`, and the lines of a
    /// block from one that starts with `/*` to the one that ends with `*/`. Nothing inside a template literal that
    /// spans lines (the HTML of Chrome.js) is touched: such a literal is followed by the count of backticks on the
    /// lines of code. Where that count does not come back even at the end (a backtick in a string or a trailing
    /// comment, say), or a block's last line has code after its `*/`, the source is returned as it is.
    static func blankingCommentLines(_ source: String) -> String {
        var lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var inTemplate = false
        var blockStart: Int?
        for index in lines.indices {
            let trimmed = lines[index].trimmingCharacters(in: .whitespaces)
            if let start = blockStart {
                guard let end = trimmed.range(of: "*/") else { continue }
                guard trimmed[end.upperBound...].isEmpty else { return source }
                for line in start...index { lines[line] = "" }
                blockStart = nil
            } else if !inTemplate && trimmed.hasPrefix("//") {
                lines[index] = ""
            } else if !inTemplate && trimmed.hasPrefix("/*") {
                blockStart = index
                // A block that closes on its own line: the same rule, at once.
                if let end = trimmed.range(of: "*/", range: trimmed.index(trimmed.startIndex, offsetBy: 2)..<trimmed.endIndex) {
                    guard trimmed[end.upperBound...].isEmpty else { return source }
                    lines[index] = ""
                    blockStart = nil
                }
            } else if lines[index].utf8.reduce(0, { $0 + ($1 == UInt8(ascii: "`") ? 1 : 0) }) % 2 == 1 {
                inTemplate.toggle()
            }
        }
        return inTemplate || blockStart != nil ? source : lines.joined(separator: "\n")
    }
}
