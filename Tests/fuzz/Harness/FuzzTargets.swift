import Foundation

/// The fuzz targets by name, and the bridge to libFuzzer.
///
/// A target gets the raw input bytes and either returns (the input was handled: accepted or refused) or
/// stops the process: a Swift trap (overflow, index out of range) or a failed `FuzzCheck.require`, which
/// libFuzzer reports as a crash and saves the input of.
enum FuzzTargets {
    static let all: [String: @Sendable ([UInt8]) -> Void] = [
        "endpoint": EndpointTarget.run,
        "percent-decoding": PercentDecodingTarget.run,
        "iiif": IIIFTarget.run,
        "viewport-query": ViewportQueryTarget.run,
        "viewport-json": ViewportJSONTarget.run,
        "multipart": MultipartTarget.run,
        "captions-json": CaptionsTarget.runJSON,
        "captions-plist": CaptionsTarget.runPropertyList,
        "rating": RatingTarget.run,
        "jpeg-huffman": JPEGHuffmanTarget.run,
        "jpeg-eighth": JPEGEighthScaleTarget.run,
        "jpeg-rows": JPEGRowsTarget.run,
        "hot-responses": HotResponsesTarget.run,
        "accept": AcceptTarget.run,
        "forwarded-for": FairQueueTarget.runForwardedFor,
        "fair-queue": FairQueueTarget.runQueue,
        "tiff-layout": TIFFLayoutTarget.run,
        "s3-xml": S3XMLTarget.run,
        "http-response": HTTPResponseTarget.run,
        "pack-index": PackIndexTarget.run,
        "pyramidal-sources-json": PyramidalSourcesTarget.run,
        "signed-token": SignedTokenTarget.run,
        "accounts": AccountsTarget.run,
    ]

    /// Set once by main before libFuzzer starts; read only on the fuzzing thread.
    nonisolated(unsafe) static var selected: ([UInt8]) -> Void = { _ in }

    static func runLibFuzzer() -> CInt {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        return LLVMFuzzerRunDriver(&argc, &argv, fuzzOneInput)
    }
}

/// libFuzzer's own driver (compiler-rt), started from main so that main can pick the target first.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

// Defined here, in the file that also passes it to LLVMFuzzerRunDriver: referring to a @_cdecl function as
// a C function pointer from another file emits its C symbol a second time (a duplicate-symbol link error).
// The symbol must exist anyway, since the -sanitize=fuzzer runtime's own main refers to it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTargets.selected(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
