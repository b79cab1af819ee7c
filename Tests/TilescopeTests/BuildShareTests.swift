import Catalog
import Imaging
import Testing
@testable import Tilescope

/// Found after a restart mid-build: `"status":"building","progress":100` while levels were still
/// missing. Progress counts what is left (the levels still to publish), and 100 only means ready.
@Suite struct BuildShareTests {
    @Test func progressNeverSaysDoneWhileLevelsAreLeft() {
        let share = BuildShare()
        #expect(share.passed(BuildProgress(percent: 0, etaSeconds: 0)).percent == 0)
        // A JPEG's base (levels 0 to 10 of 15) is out before the pass.
        #expect(share.published(levels: 11, of: 15).percent == 7)
        #expect(share.passed(BuildProgress(percent: 50, etaSeconds: 8)).percent == 52)
        let passDone = share.passed(BuildProgress(percent: 100, etaSeconds: 0))
        #expect(passDone.percent == 97 && passDone.etaSeconds >= 1, "the levels are still to publish")
        #expect(share.published(levels: 14, of: 15).percent == 99)
        // Whatever the figures, "building" never says 100.
        for pass in [0, 50, 100, 150] {
            for ready in [0, 7, 15, 20] {
                let shown = BuildShare.percent(pass: BuildProgress(percent: pass, etaSeconds: 0), levelsReady: ready, levelCount: 15)
                #expect((0...99).contains(shown.percent), "pass \(pass), \(ready) levels")
            }
        }
    }

    @Test func theImageJSONOfABuildingImageIsBelow100() {
        let record = ImageRecord(id: "a", fileName: "a.jpg", folder: "/images", version: "1",
                                 stamp: SourceFingerprint.Stamp(size: 1, modifiedNanoseconds: 1),
                                 header: ImageHeader(width: 4000, height: 3000, bands: 3),
                                 status: .building(BuildProgress(percent: 100, etaSeconds: 0)))
        let json = ImageJSON(record, title: "a")
        #expect(json.status == "building")
        #expect(json.progress == 99)
    }
}
