import SeededRandom
import Testing
@testable import ScrollGeometry

/// Invariants of rules 1-10 over thousands of random images, viewports, insets, scales and offsets.
/// Seeded: a failure prints the scene (and its seed), which reproduces it exactly.
@Suite struct ViewportPropertyTests {
    static let cases = 4000

    @Test func zoomScaleIsWithinItsLimitsAndClampingIsIdempotent() {
        for scene in RandomScene.all(Self.cases, base: 1_000_000) {
            let state = ScrollState(imageSize: scene.imageSize, scrollView: scene.scrollView)
            let range = state.zoomScaleRange
            #expect(range.minimum > 0 && range.minimum <= range.maximum, "\(scene)")
            #expect(range.minimum <= state.zoomScale && state.zoomScale <= range.maximum, "\(scene)")
            // Feeding the answer back changes nothing: zoomScale, offset and everything derived.
            var settled = scene.scrollView
            settled.zoomScale = state.zoomScale
            settled.contentOffset = state.contentOffset
            #expect(ScrollState(imageSize: scene.imageSize, scrollView: settled) == state, "\(scene)")
        }
    }

    @Test func offsetIsInTheScrollableRangeOrCentred() {
        for scene in RandomScene.all(Self.cases, base: 2_000_000) {
            let view = scene.scrollView
            let state = ScrollState(imageSize: scene.imageSize, scrollView: view)
            let available = view.availableSize
            let inset = view.contentInset
            func check(offset: Double, content: Double, bounds: Double, available: Double, leading: Double, trailing: Double) {
                let tolerance = 1e-9 * max(1, abs(content), bounds)
                if content < available - tolerance {
                    // Centred: equal margins on both sides of the content within the available area.
                    let before = -offset - leading
                    let after = (offset + bounds - trailing) - content
                    #expect(approx(before, after, 1e-9), "\(scene)")
                    #expect(before > 0, "\(scene)")
                } else {
                    #expect(offset >= -leading - tolerance, "\(scene)")
                    #expect(offset <= content + trailing - bounds + tolerance, "\(scene)")
                }
            }
            check(offset: state.contentOffset.x, content: state.contentSize.width, bounds: view.boundsSize.width,
                  available: available.width, leading: inset.left, trailing: inset.right)
            check(offset: state.contentOffset.y, content: state.contentSize.height, bounds: view.boundsSize.height,
                  available: available.height, leading: inset.top, trailing: inset.bottom)
        }
    }

    @Test func visibleRectIsTheViewportInsideTheImage() {
        for scene in RandomScene.all(Self.cases, base: 3_000_000) {
            let state = ScrollState(imageSize: scene.imageSize, scrollView: scene.scrollView)
            let visible = state.visibleRect
            let image = scene.imageSize
            let slack = 1e-9 * max(image.width, image.height)
            #expect(!visible.isEmpty, "\(scene)")
            #expect(visible.minX >= -slack && visible.minY >= -slack, "\(scene)")
            #expect(visible.maxX <= image.width + slack && visible.maxY <= image.height + slack, "\(scene)")
            // Never wider than the viewport, never narrower than the available area (or the whole content):
            // insets may show empty margins, never hide content inside the available area.
            let view = scene.scrollView
            let z = state.zoomScale
            let available = view.availableSize
            let tolerance = 1e-9 * max(1, view.boundsSize.width, view.boundsSize.height)
            #expect(visible.width * z <= view.boundsSize.width + tolerance, "\(scene)")
            #expect(visible.height * z <= view.boundsSize.height + tolerance, "\(scene)")
            #expect(visible.width * z >= min(available.width, state.contentSize.width) - tolerance, "\(scene)")
            #expect(visible.height * z >= min(available.height, state.contentSize.height) - tolerance, "\(scene)")
            if view.contentInset == .zero && state.contentSize.width >= view.boundsSize.width {
                #expect(approx(visible.width * z, view.boundsSize.width), "\(scene)")
            }
        }
    }

    @Test func swapHappensExactlyAtTheThreshold() {
        for scene in RandomScene.all(Self.cases, base: 4_000_000) {
            let scale = scene.scrollView.scale
            let choice = LevelChoice(pyramid: scene.pyramid, zoomScale: 1, scale: scale)
            let threshold = choice.threshold
            let previewScale = scene.pyramid.scale(ofLevel: choice.previewLevel)
            #expect(approx(threshold * scale, previewScale), "\(scene)")
            let at = LevelChoice(pyramid: scene.pyramid, zoomScale: threshold, scale: scale)
            let below = LevelChoice(pyramid: scene.pyramid, zoomScale: threshold * (1 - 1e-6), scale: scale)
            let above = LevelChoice(pyramid: scene.pyramid, zoomScale: threshold * (1 + 1e-6), scale: scale)
            #expect(at.resolution == .low, "\(scene)")
            #expect(below.resolution == .low, "\(scene)")
            #expect(above.resolution != .low, "\(scene)")
            // And through the whole pipeline, with limits that let the zoomScale reach the threshold.
            var view = scene.scrollView
            view.minimumZoomScale = threshold / 10
            view.maximumZoomScale = threshold * 10
            view.zoomScale = threshold
            #expect(Viewport(pyramid: scene.pyramid, scrollView: view).resolution == .low, "\(scene)")
            view.zoomScale = threshold * (1 + 1e-6)
            #expect(Viewport(pyramid: scene.pyramid, scrollView: view).resolution != .low, "\(scene)")
        }
    }

    @Test func levelIsTheSmallestAtLeastAsSharpAsTheScreen() {
        for scene in RandomScene.all(Self.cases, base: 5_000_000) {
            let viewport = Viewport(pyramid: scene.pyramid, scrollView: scene.scrollView)
            let density = viewport.zoomScale * scene.scrollView.scale
            let previewScale = scene.pyramid.scale(ofLevel: viewport.previewLevel)
            guard let level = viewport.level else {
                #expect(density <= previewScale + 1e-9, "\(scene)")
                continue
            }
            #expect(density > previewScale, "\(scene)")
            let s = scene.pyramid.scale(ofLevel: level)
            if level < scene.pyramid.maxLevel {
                #expect(s >= density * (1 - 1e-9), "sharp enough: \(scene)")
            }
            if level > 0 {
                #expect(s / 2 < density * (1 + 1e-9), "the level below is not: \(scene)")
            }
            #expect(level > viewport.previewLevel || level == scene.pyramid.maxLevel, "\(scene)")
        }
    }

    @Test func tilesCoverTheVisibleRectExactly() {
        for scene in RandomScene.all(Self.cases, base: 6_000_000) {
            let viewport = Viewport(pyramid: scene.pyramid, scrollView: scene.scrollView)
            guard let level = viewport.level else {
                #expect(viewport.tiles.isEmpty, "\(scene)")
                continue
            }
            let pyramid = scene.pyramid
            let s = pyramid.scale(ofLevel: level)
            let size = pyramid.size(ofLevel: level)
            let t = Double(pyramid.tileSize)
            let addresses = viewport.tiles.map(\.address)
            #expect(!addresses.isEmpty, "\(scene)")
            #expect(Set(addresses).count == addresses.count, "no duplicates: \(scene)")
            #expect(addresses.allSatisfy { $0.level == level && pyramid.contains(level: level, column: $0.column, row: $0.row) })
            // The exact visible rectangle in level pixels, clipped to the level.
            let v = viewport.visibleRect
            let x0 = max(0, v.minX * s), x1 = min(Double(size.width), v.maxX * s)
            let y0 = max(0, v.minY * s), y1 = min(Double(size.height), v.maxY * s)
            let slack = 1e-6
            func cell(_ column: Int, _ row: Int) -> (Double, Double, Double, Double) {
                (Double(column) * t, min(Double(column + 1) * t, Double(size.width)),
                 Double(row) * t, min(Double(row + 1) * t, Double(size.height)))
            }
            // No tile outside: each one's cell meets the rectangle (grown by a hair).
            for a in addresses {
                let (cx0, cx1, cy0, cy1) = cell(a.column, a.row)
                #expect(cx0 < x1 + slack && cx1 > x0 - slack && cy0 < y1 + slack && cy1 > y0 - slack, "\(a) \(scene)")
            }
            // No tile missing: every cell meeting the rectangle (shrunk by a hair) is listed.
            let grid = pyramid.tileGrid(ofLevel: level)
            let listed = Set(addresses)
            let columns = max(0, Int(x0 / t) - 1)...min(grid.columns - 1, Int(x1 / t) + 1)
            let rows = max(0, Int(y0 / t) - 1)...min(grid.rows - 1, Int(y1 / t) + 1)
            for row in rows {
                for column in columns {
                    let (cx0, cx1, cy0, cy1) = cell(column, row)
                    if cx0 < x1 - slack && cx1 > x0 + slack && cy0 < y1 - slack && cy1 > y0 + slack {
                        #expect(listed.contains(TileAddress(level: level, column: column, row: row)), "\(column),\(row) \(scene)")
                    }
                }
            }
        }
    }

    @Test func framesDrawTheWholeVisibleRect() {
        for scene in RandomScene.all(Self.cases, base: 7_000_000) {
            let viewport = Viewport(pyramid: scene.pyramid, scrollView: scene.scrollView)
            guard !viewport.tiles.isEmpty else { continue }
            let z = viewport.zoomScale
            let visible = viewport.visibleRect.scaled(by: z)
            let frames = viewport.tiles.map(\.frame)
            let slack = 1e-9 * max(1, viewport.contentSize.width, viewport.contentSize.height)
            #expect(frames.map(\.minX).min()! <= visible.minX + slack, "\(scene)")
            #expect(frames.map(\.minY).min()! <= visible.minY + slack, "\(scene)")
            #expect(frames.map(\.maxX).max()! >= visible.maxX - slack, "\(scene)")
            #expect(frames.map(\.maxY).max()! >= visible.maxY - slack, "\(scene)")
            // Neighbours overlap or abut: no seam between them.
            let byAddress = Dictionary(uniqueKeysWithValues: viewport.tiles.map { ($0.address, $0.frame) })
            for (address, frame) in byAddress {
                var right = address
                right.column += 1
                if let next = byAddress[right] { #expect(next.minX <= frame.maxX + slack, "\(scene)") }
                var below = address
                below.row += 1
                if let next = byAddress[below] { #expect(next.minY <= frame.maxY + slack, "\(scene)") }
            }
        }
    }

    @Test func framesTileTheContentWithoutGaps() {
        var random = SeededGenerator(seed: 8_000_000)
        for _ in 0..<500 {
            let pyramid = Pyramid(width: random.logUniformInt(1...60000), height: random.logUniformInt(1...60000),
                                  tileSize: [254, 256, 100, 7].randomElement(using: &random)!, overlap: Int.random(in: 0...2, using: &random))
            let level = Int.random(in: pyramid.levels, using: &random)
            let zoomScale = random.logUniform(1e-3...8)
            let k = zoomScale / pyramid.scale(ofLevel: level)
            let size = pyramid.size(ofLevel: level)
            let grid = pyramid.tileGrid(ofLevel: level)
            let o = Double(pyramid.overlap)
            let t = Double(pyramid.tileSize)
            // Along the first row and the first column (the grid is a product, so that is every edge):
            // each frame holds its own grid cell, neighbours meet or overlap by at most 2 x overlap,
            // the first starts at 0 and the last ends at the level's edge.
            func checkAxis(count: Int, extent: Int, frame: (Int) -> (Double, Double)) {
                var previousEnd = 0.0
                for index in 0..<count {
                    let (start, end) = frame(index)
                    let cellStart = Double(index) * t, cellEnd = min(Double(index + 1) * t, Double(extent))
                    #expect(start / k <= cellStart + 1e-9 * cellEnd && end / k >= cellEnd * (1 - 1e-12), "\(pyramid) L\(level) #\(index)")
                    #expect(start / k <= previousEnd * (1 + 1e-12), "no gap: \(pyramid) L\(level) #\(index)")
                    #expect(previousEnd - start / k <= 2 * o + 1e-9 * cellEnd, "overlap: \(pyramid) L\(level) #\(index)")
                    previousEnd = end / k
                }
                #expect(frame(0).0 == 0)
                #expect(approx(previousEnd, Double(extent)))
            }
            checkAxis(count: grid.columns, extent: size.width) { column in
                let frame = Tile(TileAddress(level: level, column: column, row: 0), in: pyramid, zoomScale: zoomScale).frame
                return (frame.minX, frame.maxX)
            }
            checkAxis(count: grid.rows, extent: size.height) { row in
                let frame = Tile(TileAddress(level: level, column: 0, row: row), in: pyramid, zoomScale: zoomScale).frame
                return (frame.minY, frame.maxY)
            }
            // The level covers the content, and passes it by less than one level pixel.
            let contentWidth = Double(pyramid.width) * zoomScale
            let levelWidth = Double(size.width) * k
            #expect(levelWidth >= contentWidth * (1 - 1e-12))
            #expect(levelWidth - contentWidth < k * (1 + 1e-9))
        }
    }

    @Test func tilesComeNearestTheViewportCentreFirst() {
        for scene in RandomScene.all(Self.cases, base: 9_000_000) {
            let viewport = Viewport(pyramid: scene.pyramid, scrollView: scene.scrollView)
            guard let level = viewport.level else { continue }
            let s = scene.pyramid.scale(ofLevel: level)
            let centre = viewport.state.viewportCentre
            // The centre of the viewport in image pixels, recomputed from the public answer.
            let bounds = scene.scrollView.boundsSize
            #expect(approx(centre.x, (viewport.contentOffset.x + bounds.width / 2) / viewport.zoomScale), "\(scene)")
            let size = scene.pyramid.size(ofLevel: level)
            let t = scene.pyramid.tileSize
            let distances = viewport.tiles.map { tile -> Double in
                let a = tile.address
                let dx = Double(a.column * t + min((a.column + 1) * t, size.width)) / 2 - centre.x * s
                let dy = Double(a.row * t + min((a.row + 1) * t, size.height)) / 2 - centre.y * s
                return dx * dx + dy * dy
            }
            #expect(zip(distances, distances.dropFirst()).allSatisfy { $0 <= $1 }, "\(scene)")
        }
    }

    @Test func tileListIsBoundedByTheViewport() {
        for scene in RandomScene.all(Self.cases, base: 10_000_000) {
            let viewport = Viewport(pyramid: scene.pyramid, scrollView: scene.scrollView, prefetch: true)
            let bounds = scene.scrollView.boundsSize
            let scale = scene.scrollView.scale
            let t = Double(scene.pyramid.tileSize)
            // The level has fewer than 2 device pixels per level pixel, so the visible rectangle is under
            // 2 x bounds x scale level pixels (+2 for rounding) and touches at most one more tile per axis.
            let columns = ((2 * bounds.width * scale + 2) / t).rounded(.up) + 1
            let rows = ((2 * bounds.height * scale + 2) / t).rounded(.up) + 1
            #expect(Double(viewport.tiles.count) <= columns * rows, "\(scene)")
            // Prefetch: the ring plus the next level (twice as fine) of the same rectangle.
            let ring = 2 * (columns + rows) + 4
            let next = ((4 * bounds.width * scale + 2) / t + 1).rounded(.up) * ((4 * bounds.height * scale + 2) / t + 1).rounded(.up)
            let lowBound = 81.0 * (254 / t).rounded(.up) * (254 / t).rounded(.up)  // a level of at most 2049 pixels a side
            #expect(Double(viewport.prefetch?.count ?? 0) <= max(ring + next, lowBound), "\(scene)")
        }
    }

    @Test func prefetchIsOutsideTheTilesAndNextToThem() {
        for scene in RandomScene.all(Self.cases, base: 11_000_000) {
            let viewport = Viewport(pyramid: scene.pyramid, scrollView: scene.scrollView, prefetch: true)
            let prefetch = viewport.prefetch ?? []
            let tiles = Set(viewport.tiles.map(\.address))
            #expect(Set(prefetch.map(\.address)).count == prefetch.count, "\(scene)")
            #expect(prefetch.allSatisfy { !tiles.contains($0.address) }, "\(scene)")
            guard let level = viewport.level else {
                #expect(prefetch.allSatisfy { $0.address.level == min(viewport.previewLevel + 1, scene.pyramid.maxLevel) })
                continue
            }
            for tile in prefetch where tile.address.level == level {
                // Touches the cover: some listed tile is one step away.
                let near = tiles.contains { abs($0.column - tile.address.column) <= 1 && abs($0.row - tile.address.row) <= 1 }
                #expect(near, "\(tile.address) \(scene)")
            }
            #expect(prefetch.allSatisfy { $0.address.level == level || $0.address.level == level + 1 }, "\(scene)")
            if level < scene.pyramid.maxLevel {
                #expect(prefetch.contains { $0.address.level == level + 1 }, "\(scene)")
            }
        }
    }

    @Test func zoomToRectCentresTheRect() {
        for scene in RandomScene.all(Self.cases, base: 12_000_000) {
            var random = SeededGenerator(seed: scene.seed)
            let image = scene.imageSize
            let w = random.logUniform(1e-3...image.width * 2), h = random.logUniform(1e-3...image.height * 2)
            let rect = Rect(x: Double.random(in: -0.1...1, using: &random) * image.width,
                            y: Double.random(in: -0.1...1, using: &random) * image.height, width: w, height: h)
            let view = scene.scrollView
            let zoomed = Zoom.toRect(rect).applied(to: view, imageSize: image)
            let state = ScrollState(imageSize: image, scrollView: zoomed)
            let available = view.availableSize
            let range = ZoomScaleRange(imageSize: image, scrollView: view)
            #expect(state.zoomScale == range.clamp(min(available.width / w, available.height / h)), "\(scene)")
            // Wherever rule 4 did not have to move it, the rect's centre is the available area's centre.
            let z = state.zoomScale
            let centreX = (state.contentOffset.x + view.contentInset.left + available.width / 2) / z
            let centreY = (state.contentOffset.y + view.contentInset.top + available.height / 2) / z
            if state.contentOffset.x == zoomed.contentOffset.x {
                #expect(approx(centreX, rect.center.x, 1e-9), "\(scene)")
            }
            if state.contentOffset.y == zoomed.contentOffset.y {
                #expect(approx(centreY, rect.center.y, 1e-9), "\(scene)")
            }
            // When the zoom was not clamped, the rect fits the available area and fills it on one axis.
            if z == min(available.width / w, available.height / h) {
                #expect(w * z <= available.width * (1 + 1e-9) && h * z <= available.height * (1 + 1e-9))
                #expect(approx(w * z, available.width) || approx(h * z, available.height))
            }
        }
    }

    @Test func doubleTapScalesByTheFactorAroundTheTap() {
        for scene in RandomScene.all(Self.cases, base: 13_000_000) {
            var random = SeededGenerator(seed: scene.seed)
            let image = scene.imageSize
            let tap = Point(x: Double.random(in: 0...image.width, using: &random), y: Double.random(in: 0...image.height, using: &random))
            let factor = random.chance(0.5) ? Zoom.defaultTapFactor : random.logUniform(0.1...10)
            let before = ScrollState(imageSize: image, scrollView: scene.scrollView)
            let zoomed = Zoom.tap(tap, factor: factor).applied(to: scene.scrollView, imageSize: image)
            let after = ScrollState(imageSize: image, scrollView: zoomed)
            #expect(after.zoomScale == before.zoomScaleRange.clamp(before.zoomScale * factor), "\(scene)")
            // Equivalent to zoomToRect of available / newScale around the tap.
            let available = scene.scrollView.availableSize
            let rect = Rect(x: tap.x - available.width / after.zoomScale / 2, y: tap.y - available.height / after.zoomScale / 2,
                            width: available.width / after.zoomScale, height: available.height / after.zoomScale)
            let viaRect = ScrollState(imageSize: image, scrollView: Zoom.toRect(rect).applied(to: scene.scrollView, imageSize: image))
            #expect(approx(viaRect.zoomScale, after.zoomScale), "\(scene)")
            let tolerance = 1e-9 * max(1, after.contentSize.width, after.contentSize.height)
            #expect(abs(viaRect.contentOffset.x - after.contentOffset.x) <= tolerance, "\(scene)")
            #expect(abs(viaRect.contentOffset.y - after.contentOffset.y) <= tolerance, "\(scene)")
        }
    }

    @Test func pagingRingWrapsEveryPage() {
        var random = SeededGenerator(seed: 14_000_000)
        for _ in 0..<Self.cases {
            let count = random.logUniformInt(1...100_000)
            let n = random.chance(0.1) ? Int.random(in: Int.min...Int.max, using: &random) : Int.random(in: -1_000_000...1_000_000, using: &random)
            guard let ring = PagingRing(page: n, count: count) else {
                Issue.record("count \(count) must give a ring")
                continue
            }
            #expect((0..<count).contains(ring.page))
            // page is congruent to n: checked in 128 bits, where n - page cannot overflow.
            #expect((Int128(n) - Int128(ring.page)) % Int128(count) == 0, "\(n) \(count)")
            #expect(ring.next == (ring.page + 1) % count)
            #expect(ring.previous == (ring.page + count - 1) % count)
            #expect(PagingRing(page: ring.page + count, count: count) == ring)
        }
    }
}
