import Foundation
import Imaging

/// Writes an Aperio-style SVS that OpenSlide recognises, with libvips and a few bytes of TIFF: tiled JPEG pyramid
/// pages whose first ImageDescription starts with `Aperio Image Library` and gives `MPP`, then a label in strips
/// (OpenSlide's Aperio reader takes every tiled directory for a level and names a striped one by the second line
/// of its description, which must be split by `\n`: with `\r\n` the line is empty and the label is not listed).
public enum AperioSlide {
    /// `source` (a file libvips reads) as an SVS at `path`, with `label` (8-bit RGB pixels) appended.
    public static func write(source: String, to path: String, micronsPerPixel: Double,
                      label: (pixels: [UInt8], width: Int, height: Int)) throws {
        let folder = (path as NSString).deletingLastPathComponent
        let header = try VImage.open(source)
        let description = "Aperio Image Library v12.0.15 \n\(header.width)x\(header.height) [0,0 \(header.width)x\(header.height)]"
            + " (256x256) JPEG/RGB Q=90|AppMag = 40|MPP = \(micronsPerPixel)"
        let described = folder + "/described.v"
        try run("/usr/bin/vips", ["copy", source, described])
        try setFields(of: described, [("VipsRefString", "image-description", description)])
        try run("/usr/bin/vips", ["tiffsave", described, path, "--tile", "--pyramid", "--compression", "jpeg",
                                  "--Q", "90", "--tile-width", "256", "--tile-height", "256"])
        try appendStrippedRGB(to: path, pixels: label.pixels, width: label.width, height: label.height,
                              description: "Aperio Image Library v12.0.15\nlabel \(label.width)x\(label.height)")
    }

    /// Replaces the metadata of a libvips `.v` file with `fields` (type, name, value): `vipsedit --setext` reads
    /// the new extension block from standard input, so it runs under a shell that redirects one.
    public static func setFields(of path: String, _ fields: [(type: String, name: String, value: String)]) throws {
        let xml = """
            <?xml version="1.0"?>
            <root xmlns="http://www.vips.ecs.soton.ac.uk/vips/8.14.1">
              <header></header>
              <meta>
            \(fields.map { "    <field type=\"\($0.type)\" name=\"\($0.name)\">\($0.value)</field>" }.joined(separator: "\n"))
              </meta>
            </root>
            """
        let xmlPath = path + ".xml"
        try xml.write(toFile: xmlPath, atomically: true, encoding: .utf8)
        try run("/bin/sh", ["-c", "exec /usr/bin/vipsedit --setext \"$0\" < \"$1\"", path, xmlPath])
    }

    /// Appends a directory of uncompressed RGB pixels in one strip to a classic little-endian TIFF (what libvips
    /// writes), after its last directory: libvips writes every page of a pyramid tiled, and Aperio's associated
    /// images are in strips.
    public static func appendStrippedRGB(to path: String, pixels: [UInt8], width: Int, height: Int, description: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard bytes.starts(with: [0x49, 0x49, 42, 0]) else { throw TestFailure("\(path) is not a classic little-endian TIFF") }
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        var nextField = 4
        while u32(nextField) != 0 { nextField = u32(nextField) + 2 + 12 * u16(u32(nextField)) }
        func append(_ data: [UInt8]) -> Int {
            if bytes.count % 2 == 1 { bytes.append(0) }
            defer { bytes.append(contentsOf: data) }
            return bytes.count
        }
        let pixelOffset = append(pixels)
        let text = Array(description.utf8) + [0]
        let textOffset = append(text)
        let bitsOffset = append([8, 0, 8, 0, 8, 0])
        // Tag, type (3 SHORT, 4 LONG, 2 ASCII), count, value or offset; in ascending tag order.
        let entries: [(Int, Int, Int, Int)] = [
            (256, 4, 1, width), (257, 4, 1, height), (258, 3, 3, bitsOffset), (259, 3, 1, 1), (262, 3, 1, 2),
            (270, 2, text.count, textOffset), (273, 4, 1, pixelOffset), (277, 3, 1, 3), (278, 4, 1, height),
            (279, 4, 1, pixels.count), (284, 3, 1, 1),
        ]
        var directory: [UInt8] = le(entries.count, 2)
        for (tag, type, count, value) in entries {
            directory += le(tag, 2) + le(type, 2) + le(count, 4) + le(value, 4)
        }
        directory += le(0, 4)
        let directoryOffset = append(directory)
        bytes.replaceSubrange(nextField..<(nextField + 4), with: le(directoryOffset, 4))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    private static func le(_ value: Int, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    public static func run(_ tool: String, _ arguments: [String]) throws {
        let outcome = try Command.run(tool, arguments)
        guard outcome.status == 0 else { throw TestFailure("\(tool) \(arguments.joined(separator: " ")): \(outcome.output)") }
    }
}
