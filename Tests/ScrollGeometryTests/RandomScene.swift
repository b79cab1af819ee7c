import SeededRandom
@testable import ScrollGeometry

/// A random image pyramid and a random scroll view over it, for property tests.
struct RandomScene: CustomStringConvertible {
    let seed: UInt64
    let pyramid: Pyramid
    let scrollView: ScrollView

    var imageSize: Size { Size(width: Double(pyramid.width), height: Double(pyramid.height)) }

    var description: String { "seed \(seed): \(pyramid) \(scrollView)" }

    init(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        self.seed = seed
        let tileSize = [254, 254, 256, 510, 1024, 100, 7].randomElement(using: &random)!
        pyramid = Pyramid(width: random.logUniformInt(1...60000), height: random.logUniformInt(1...60000),
                          tileSize: tileSize, overlap: Int.random(in: 0...min(2, tileSize - 1), using: &random))

        // Keep the tile list a few thousand at most for tiny tiles, so thousands of cases stay fast.
        let maxSide = tileSize < 100 ? 200.0 : 2048
        let bounds = Size(width: random.logUniform(1...maxSide), height: random.logUniform(1...maxSide))
        let scale = random.chance(0.5) ? [1.0, 2, 3, 4].randomElement(using: &random)! : Double.random(in: 1...4, using: &random)
        var insets = Insets.zero
        if random.chance(0.5) {
            insets = Insets(top: Double.random(in: 0..<0.45, using: &random) * bounds.height,
                            left: Double.random(in: 0..<0.45, using: &random) * bounds.width,
                            bottom: Double.random(in: 0..<0.45, using: &random) * bounds.height,
                            right: Double.random(in: 0..<0.45, using: &random) * bounds.width)
        }
        var view = ScrollView(boundsSize: bounds, scale: scale, contentInset: insets)
        if random.chance(0.2) { view.minimumZoomScale = random.logUniform(1e-4...4) }
        if random.chance(0.2) { view.maximumZoomScale = max(view.minimumZoomScale ?? 0, random.logUniform(1e-4...16)) }
        let range = ZoomScaleRange(imageSize: Size(width: Double(pyramid.width), height: Double(pyramid.height)), scrollView: view)
        if random.chance(0.8) {
            // Mostly inside the limits, sometimes far outside them (to be clamped).
            view.zoomScale = random.logUniform(range.minimum / 4 ... range.maximum * 4)
        }
        let z = range.clamp(view.zoomScale ?? range.minimum)
        let content = Size(width: Double(pyramid.width) * z, height: Double(pyramid.height) * z)
        switch Int.random(in: 0..<4, using: &random) {
        case 0: view.contentOffset = .zero
        case 1: view.contentOffset = Point(x: Double.random(in: -1e12...1e12, using: &random),
                                           y: Double.random(in: -1e12...1e12, using: &random))
        default: view.contentOffset = Point(x: Double.random(in: -0.2...1.2, using: &random) * content.width,
                                            y: Double.random(in: -0.2...1.2, using: &random) * content.height)
        }
        scrollView = view
    }

    /// Seeds `base ..< base + count`: each property uses its own base so they explore different cases.
    static func all(_ count: Int, base: UInt64) -> [RandomScene] {
        (0..<UInt64(count)).map { RandomScene(seed: base &+ $0) }
    }
}
