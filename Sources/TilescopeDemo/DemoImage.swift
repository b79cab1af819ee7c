import ScrollGeometry

/// One image of the built-in demo gallery: its stable file name, its size, and the words
/// that tell a visitor what to look for when zooming in.
public struct DemoImage: Sendable, Hashable {
    public var fileName: String
    public var size: PixelSize
    public var title: String
    public var caption: String

    public init(fileName: String, size: PixelSize, title: String, caption: String) {
        self.fileName = fileName
        self.size = size
        self.title = title
        self.caption = caption
    }
}

extension DemoImage {
    public static let panorama = DemoImage(
        fileName: "panorama.jpg", size: PixelSize(width: 4800, height: 1600),
        title: "Dusk over the ranges",
        caption: "A 3:1 procedural panorama: four mountain ranges fading into mist above a lake that mirrors "
            + "them. Zoom in for single-pixel stars, the snow line on the far peaks, the fir trees along the "
            + "nearest ridge and the ripples in the reflection.")

    public static let tower = DemoImage(
        fileName: "tower.jpg", size: PixelSize(width: 1200, height: 3600),
        title: "The numbered tower",
        caption: "A tall 1:3 night scene. Zoom in on the tower: every floor carries its number on the left, "
            + "windows are lit one by one, and a few have someone standing in them. The red beacon tops the spire.")

    public static let mandelbrot = DemoImage(
        fileName: "mandelbrot.png", size: PixelSize(width: 2048, height: 2048),
        title: "Mandelbrot set",
        caption: "A square, lossless rendering of the Mandelbrot set with smooth colouring. Zoom into the "
            + "boundary: the filaments and the miniature copies of the set resolve down to single pixels.")

    public static let grid = DemoImage(
        fileName: "grid.png", size: PixelSize(width: 4000, height: 3000),
        title: "Calibration grid",
        caption: "Every 250 px cell is labelled with the image coordinates of its top-left corner, and two "
            + "diagonals and a circle cross every tile. A tile in the wrong place shows a wrong label; a seam "
            + "or a scaling error shows as a break or a kink in a line.")

    public static let small = DemoImage(
        fileName: "small.jpg", size: PixelSize(width: 900, height: 600),
        title: "Colour wheel",
        caption: "Smaller than the 1024 px preview, so the preview alone shows all of it: hue around the wheel, "
            + "saturation from centre to rim, and a sixteen-step grey wedge below.")

    public static let gigapixel = DemoImage(
        fileName: "gigapixel.jpg", size: PixelSize(width: 40960, height: 25600),
        title: "An archipelago of a gigapixel",
        caption: "1.05 gigapixels of an imaginary archipelago, generated on first start while the other images "
            + "are already served. Zoomed out you see continents and seas; zoom in and the fractal coastlines "
            + "keep breaking into bays, islets and rocks down to single pixels. The grid lines every 4096 px "
            + "carry their image coordinates, so you always know where you are.")

    /// The images `writeQuickImages` makes, smallest first.
    public static let quick: [DemoImage] = [small, tower, mandelbrot, panorama, grid]
    public static let all: [DemoImage] = quick + [gigapixel]
}
