import Testing
@testable import Catalog

@Suite struct ImageIDTests {
    @Test func slugsAreURLSafeStems() {
        #expect(ImageID.slug(of: "tiger0.jpg") == "tiger0")
        #expect(ImageID.slug(of: "Tiger 0.JPG") == "tiger-0")
        #expect(ImageID.slug(of: "  été/../x.png") == "ete-x")
        #expect(ImageID.slug(of: ".jpg") == "jpg")
        #expect(ImageID.slug(of: "!!!.png") == "image")
        #expect(ImageID.slug(of: "a_b-c.d.tif") == "a_b-c-d")
        #expect(ImageID.slug(of: String(repeating: "x", count: 500) + ".jpg").count == 120)
    }

    /// Issue #18: letters outside ASCII are spelled in ASCII, never dropped.
    @Test func nonASCIINamesAreTransliterated() {
        #expect(ImageID.slug(of: "café ñ.jpg") == "cafe-n")
        #expect(ImageID.slug(of: "Ærø.jpg") == "aero")
        #expect(ImageID.slug(of: "Straße.png") == "strasse")
        #expect(ImageID.slug(of: "Łódź.tif") == "lodz")
        #expect(ImageID.slug(of: "日本-2.jpg") == "ri-ben-2")
        #expect(ImageID.slug(of: "Привет.jpg") == "privet")
        #expect(ImageID.slug(of: "ﬁle.jpg") == "file")
        #expect(ImageID.slug(of: "🐯.png") == "u1f42f")
        for name in ["café ñ.jpg", "日本-2.jpg", "🐯🐯.png", "ٱلْعَرَبِيَّة.jpg", "ἀλφα.png"] {
            #expect(ImageID.isWellFormed(ImageID.slug(of: name)))
            #expect(ImageID.slug(of: name) != "image", "\(name)")
        }
    }

    @Test func candidatesGoOnFromSlugToExtensionToCounters() {
        #expect(Array(ImageID.candidates(for: "Tiger 0.JPG").prefix(4)) == ["tiger-0", "tiger-0-jpg", "tiger-0-jpg-2", "tiger-0-jpg-3"])
        #expect(Array(ImageID.candidates(for: "README").prefix(3)) == ["readme", "readme-file", "readme-file-2"])
        let long = String(repeating: "x", count: 300) + "." + String(repeating: "e", count: 300)
        for id in ImageID.candidates(for: long).prefix(3) { #expect(ImageID.isWellFormed(id)) }
    }

    /// The ids catalogs from before ids were kept hold: what the migration must reproduce exactly.
    @Test func legacyAssignmentIsTheOldScheme() {
        let names = ["tiger.png", "Tiger.jpg", "tiger.jpg", "tiger-png.gif", "café ñ.jpg", "日本-2.jpg"]
        let ids = ImageID.legacyAssign(names)
        #expect(ids == ImageID.legacyAssign(names.reversed()))
        #expect(ids["Tiger.jpg"] == "tiger")
        #expect(ids["tiger-png.gif"] == "tiger-png")
        #expect(ids["tiger.jpg"] == "tiger-jpg")
        #expect(ids["tiger.png"] == "tiger-png-2")
        #expect(ids["café ñ.jpg"] == "caf")
        #expect(ids["日本-2.jpg"] == "2")
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
