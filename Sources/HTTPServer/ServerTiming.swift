/// The `dur=` values of `Server-Timing` headers that handlers add for their own steps (a render, a
/// write): milliseconds with three decimals, as the server's own `total;dur=`. `String(format:)` cost
/// about 1 % of a first-pass IIIF tile's CPU.
public enum ServerTiming {
    public static func milliseconds(_ seconds: Double) -> String {
        ASCII.milliseconds(seconds)
    }
}
