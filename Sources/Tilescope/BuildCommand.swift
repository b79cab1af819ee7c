import Catalog
import Foundation
import Imaging

/// `tilescope build`: builds pyramids for the given source files into the data folder,
/// exactly as the server would (same store, same ids from the same catalog, same crash safety).
public struct BuildCommand: PyramidSettings {
    public var dataFolder = "data"
    public var quality = 85
    public var background = Background.white
    public var sources: [String] = []

    public init() {}

    public static let settings: [Setting<BuildCommand>] = [
        Setting("--data", env: "TILESCOPE_DATA", default: \.dataFolder, "folder for pyramids") { $0.dataFolder = $1 },
    ] + pyramidSettings

    /// Several images built one after another in this process: what malloc is set up for (`MallocArenas`), here and
    /// by the command line before it starts the build (`MallocArenas.restartWithoutThreadCaches`).
    public var buildsSeveral: Bool { sources.count > 1 }

    /// Builds every source; returns the number that failed.
    public func run(progress: @escaping @Sendable (String, BuildProgress) -> Void,
                    log: @escaping (String) -> Void) throws -> Int {
        // A build alone in its process: one arena keeps its peak memory at dzsave's (MallocArenas).
        MallocArenas.limit(to: 1)
        // Builds one after another leave the heap fragmented for the next (MallocArenas.mapBlocks); a single
        // build starts from a clean one (a 4000x3000 photo peaked at 26.5 MB either way) and would only pay the
        // faults, which grow with the image's area.
        if buildsSeveral {
            MallocArenas.mapBlocks(from: 64 << 10)
            log("malloc: one arena, blocks of 64 KB and more mapped alone, threads' caches "
                + (MallocArenas.threadCachesOff() ? "off" : "on"))
        }
        let store = try FilePyramidStore(dataFolder: dataFolder)
        let (sources, dataFolder) = (sources, dataFolder)
        // The catalog's one transaction (SQLite and a durable commit) needs nothing of libvips: on a second core
        // while libvips starts, its format modules left for the sources that need them (a JPEG needs none).
        let (ids, catalogSeconds) = try Vips.startWithFormatModulesOnDemand {
            let started = ProcessInfo.processInfo.systemUptime
            return (try Self.ids(of: sources, dataFolder: dataFolder), ProcessInfo.processInfo.systemUptime - started)
        }
        // The run's one catalog transaction (every name bound at once), apart from each image's phases.
        log("catalog: ids of \(ids.count) names in " + String(format: "%.3f s", catalogSeconds) + ", beside libvips's start")
        let builder = PyramidBuilder(quality: quality, background: background)
        var failures = 0
        for source in sources {
            let name = (source as NSString).lastPathComponent
            guard let id = ids[name], let (fingerprint, _) = SourceFingerprint.compute(source) else {
                log("\(source): cannot read the file")
                failures += 1
                continue
            }
            let version = fingerprint.value
            let phases = BuildPhases()
            let prepared = ProcessInfo.processInfo.systemUptime
            // A server (or another build) on this data folder may be building it now: its pyramid is
            // waited for, then taken as up to date, rather than built over it.
            var hold = try store.holdBuild(id: id, version: version, wait: false)
            if hold == nil {
                log("\(id): another process is building it; waiting for it")
                hold = try store.holdBuild(id: id, version: version, wait: true)
            }
            defer { hold?.release() }
            if store.manifest(id: id, version: version) != nil {
                log("\(id): up to date (\(store.folder(id: id, version: version)))")
                continue
            }
            let started = Date()
            let staging = try store.makeStagingFolder(id: id, version: version)
            phases.add(.prepare, seconds: ProcessInfo.processInfo.systemUptime - prepared)
            // The moment the base (descriptor, preview, coarse levels) is out: a server sharing this
            // data folder could show the image from then on (bench/run reads it from this line).
            let publisher = PartPublisher(store: store, id: id, version: version, fileName: name, sourcePath: source) {
                manifest in
                let elapsed = String(format: "%.2f s", Date().timeIntervalSince(started))
                if !manifest.isComplete, manifest.levelsReady > 0, manifest.levelsReady <= manifest.pyramid.previewLevel() + 1 {
                    log("\(id): preview and levels 0-\(manifest.levelsReady - 1) published after \(elapsed)")
                } else {
                    // Where a build's time goes: the full pass ends as the first finer level comes out,
                    // and the last one waits for the flush before the complete manifest.
                    log("\(id): level \(manifest.levelsReady - 1) out after \(elapsed)")
                }
            }
            do {
                let pyramid = try phases.measuring {
                    let pyramid = try store.building(into: staging) { passWritten in
                        try builder.build(source: source, into: staging, progress: { progress(id, $0) },
                                          passWritten: passWritten, finished: publisher.publish)
                    }
                    BuildPhases.timing(.cleanup) {
                        store.discard(stagingFolder: staging)
                        store.removeVersions(of: id, except: version)
                        // The pass's strips, freed, stay in glibc's arenas: a folder of photos built in one
                        // process held 27 MB after the first and 41 MB from the fifth (1.40x dzsave's peak).
                        FreedMemory.returnToSystem()
                    }
                    return pyramid
                }
                log("\(id): \(pyramid.width)x\(pyramid.height), \(pyramid.maxLevel + 1) levels, "
                    + String(format: "%.1f s", Date().timeIntervalSince(started)) + " -> \(store.folder(id: id, version: version))")
                log("\(id): \(phases.summary)")
            } catch is PartPublisher.PublishedElsewhere {
                store.discard(stagingFolder: staging)
                log("\(id): published meanwhile by another process")
            } catch where store.manifest(id: id, version: version) != nil {
                store.discard(stagingFolder: staging)
                log("\(id): published meanwhile by another process (this build then met: \(error))")
            } catch {
                store.discard(stagingFolder: staging)
                store.withdraw(id: id, version: version)
                log("\(id): failed: \(error)")
                failures += 1
            }
        }
        return failures
    }

    /// The ids the catalog in `dataFolder` keeps for the sources' names. Every image file in the
    /// sources' folders is bound in the same batch, as a server's first scan of that folder would:
    /// building a subset then names each file as the server does (docs/ids.md).
    static func ids(of sources: [String], dataFolder: String) throws -> [String: String] {
        let catalog = URL(fileURLWithPath: dataFolder).appendingPathComponent(CatalogSchema.fileName).path
        let identities = FileIdentities(database: try Database(path: catalog, migrations: CatalogSchema.migrations))
        var names = Set(sources.map { ($0 as NSString).lastPathComponent })
        for folder in Set(sources.map { ($0 as NSString).deletingLastPathComponent }) {
            names.formUnion((try? SourceFolder.listSources(in: folder.isEmpty ? "." : folder)) ?? [])
        }
        return try identities.ids(for: Array(names))
    }
}
