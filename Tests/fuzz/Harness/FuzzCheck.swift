import Foundation

/// Invariant checks inside fuzz targets: a failure prints why and aborts, which libFuzzer reports as a
/// crash (with the input saved), exactly like a Swift trap.
enum FuzzCheck {
    static func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
                        file: StaticString = #fileID, line: UInt = #line) {
        guard !condition() else { return }
        FileHandle.standardError.write(Data("invariant failed at \(file):\(line): \(message())\n".utf8))
        abort()
    }
}
