import Testing
@testable import ScrollGeometry

/// The gallery's endless carousel.
@Suite struct PagingRingTests {
    @Test func pageWrapsModuloCount() {
        let ring = PagingRing(page: 7, count: 5)
        #expect(ring == PagingRing(page: 2, count: 5))
        #expect(ring?.page == 2)
        #expect(ring?.previous == 1)
        #expect(ring?.next == 3)
    }

    @Test func negativePagesWrapToo() {
        let ring = PagingRing(page: -1, count: 5)
        #expect(ring?.page == 4)
        #expect(ring?.previous == 3)
        #expect(ring?.next == 0)
        #expect(PagingRing(page: -5, count: 5)?.page == 0)
        #expect(PagingRing(page: -6, count: 5)?.page == 4)
    }

    @Test func endsWrapAround() {
        #expect(PagingRing(page: 0, count: 3)?.previous == 2)
        #expect(PagingRing(page: 2, count: 3)?.next == 0)
    }

    @Test func aSingleImageIsItsOwnNeighbour() {
        let ring = PagingRing(page: 41, count: 1)
        #expect(ring?.page == 0 && ring?.previous == 0 && ring?.next == 0)
    }

    @Test func extremePagesDoNotOverflow() {
        // 2^63 = 8^21 is 1 modulo 7, so Int.min is -1 (that is 6) and Int.max is 0 modulo 7.
        #expect(PagingRing(page: Int.min, count: 7)?.page == 6)
        #expect(PagingRing(page: Int.max, count: 7)?.page == 0)
        #expect(PagingRing(page: Int.max, count: Int.max)?.next == 1)
        #expect(PagingRing(page: Int.max - 1, count: Int.max)?.next == 0)
    }

    @Test func noImagesHaveNoPages() {
        #expect(PagingRing(page: 0, count: 0) == nil)
        #expect(PagingRing(page: 3, count: -1) == nil)
    }
}
