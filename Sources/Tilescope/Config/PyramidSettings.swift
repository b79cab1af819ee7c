import Imaging

/// How pyramids are built, said the same way to `serve` and to `build`: both make the same pyramids.
protocol PyramidSettings: Configuration {
    var quality: Int { get set }
    var background: Background { get set }
}

extension PyramidSettings {
    static var pyramidSettings: [Setting<Self>] {
        [
            Setting("--quality", env: "TILESCOPE_QUALITY", default: \.quality, "JPEG quality of pyramid tiles") {
                $0.quality = try SettingValue.integer($1, "quality", in: 1...100)
            },
            Setting("--background", env: "TILESCOPE_BACKGROUND", default: \.background,
                    "colour (#rrggbb, white or black) that transparent pixels are laid over in JPEG tiles, previews and JPEG answers; PNG, WebP, AVIF and TIFF answers keep the transparency") {
                guard let colour = Background($1) else {
                    throw UsageError("background '\($1.prefix(40))' is not #rrggbb, white or black")
                }
                $0.background = colour
            },
        ]
    }
}
