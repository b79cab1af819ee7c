import Testing
@testable import Catalog

@Suite struct ImageIDTests {
    @Test func slugsAreURLSafeStems() {
        #expect(ImageID.slug(of: "tiger0.jpg") == "tiger0")
        #expect(ImageID.slug(of: "Tiger 0.JPG") == "tiger-0")
        #expect(ImageID.slug(of: "  été/../x.png") == "t-x")
        #expect(ImageID.slug(of: ".jpg") == "jpg")
        #expect(ImageID.slug(of: "!!!.png") == "image")
        #expect(ImageID.slug(of: "a_b-c.d.tif") == "a_b-c-d")
        #expect(ImageID.slug(of: String(repeating: "x", count: 500) + ".jpg").count == 120)
    }

    @Test func collisionsAreResolvedDeterministically() {
        let names = ["tiger.png", "Tiger.jpg", "tiger.jpg", "tiger-png.gif"]
        let ids = ImageID.assign(names)
        #expect(ids == ImageID.assign(names.reversed()))
        #expect(Set(ids.values).count == names.count)
        #expect(ids["Tiger.jpg"] == "tiger")  // "T" sorts before "t"
        #expect(ids["tiger-png.gif"] == "tiger-png")
        #expect(ids["tiger.jpg"] == "tiger-jpg")
        #expect(ids["tiger.png"] == "tiger-png-2")
        for id in ids.values { #expect(ImageID.isWellFormed(id)) }
    }

    @Test func wellFormedRejectsWhatSlugsNeverAre() {
        #expect(!ImageID.isWellFormed(""))
        #expect(!ImageID.isWellFormed(".."))
        #expect(!ImageID.isWellFormed("a/b"))
        #expect(!ImageID.isWellFormed("A"))
        #expect(!ImageID.isWellFormed("a\0b"))
        #expect(ImageID.isWellFormed("tiger-0"))
    }
}
