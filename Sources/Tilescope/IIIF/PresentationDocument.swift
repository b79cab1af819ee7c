/// The IIIF Presentation API 3.0 resources Tilescope publishes, as JSON: Manifests of one or
/// all images, their Canvases with one painting Annotation each, and Collections of Manifests.
/// Only the properties Tilescope fills are modelled; optional ones are left out when nil.
enum Presentation {
    static let contextURI = "http://iiif.io/api/presentation/3/context.json"
    static let mediaType = "application/ld+json;profile=\"\(contextURI)\""

    /// A language map: `{"none": ["text"]}` for text in no particular language (titles,
    /// captions and file names are whatever their authors wrote), `{"en": [...]}` for our labels.
    typealias LanguageMap = [String: [String]]

    static func text(_ value: String) -> LanguageMap { ["none": [value]] }
    static func english(_ value: String) -> LanguageMap { ["en": [value]] }

    struct LabelValue: Encodable, Equatable {
        var label: LanguageMap
        var value: LanguageMap
    }

    struct ImageService: Encodable, Equatable {
        var id: String
        var type = "ImageService3"
        var profile = "level2"
    }

    /// A service of an image resource: its Image API service, or a private image's IIIF Authorization Flow
    /// 2.0 probe service (which says whether the client may have the image, and how to sign in).
    enum BodyService: Encodable, Equatable {
        case image(ImageService)
        case auth(AuthProbeService)

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .image(let service): try service.encode(to: encoder)
            case .auth(let service): try service.encode(to: encoder)
            }
        }
    }

    /// An image resource: the painted image or a thumbnail.
    struct Image: Encodable, Equatable {
        var id: String
        var type = "Image"
        var format = "image/jpeg"
        var width: Int
        var height: Int
        var service: [BodyService]?
    }

    struct Annotation: Encodable, Equatable {
        var id: String
        var type = "Annotation"
        var motivation = "painting"
        var body: Image
        var target: String
    }

    struct AnnotationPage: Encodable, Equatable {
        var id: String
        var type = "AnnotationPage"
        var items: [Annotation]
    }

    struct Canvas: Encodable, Equatable {
        var id: String
        var type = "Canvas"
        var label: LanguageMap
        var width: Int
        var height: Int
        var thumbnail: [Image]?
        var items: [AnnotationPage]
    }

    struct Manifest: Encodable, Equatable {
        var context = Presentation.contextURI
        var id: String
        var type = "Manifest"
        var label: LanguageMap
        var summary: LanguageMap?
        var metadata: [LabelValue]?
        var rights: String?
        var requiredStatement: LabelValue?
        var thumbnail: [Image]?
        var items: [Canvas]

        enum CodingKeys: String, CodingKey {
            case context = "@context"
            case id, type, label, summary, metadata, rights, requiredStatement, thumbnail, items
        }
    }

    /// A Manifest or a Collection as an item of a Collection: a reference, not the whole resource.
    struct Reference: Encodable, Equatable {
        var id: String
        var type: String
        var label: LanguageMap
        var thumbnail: [Image]?
    }

    struct Collection: Encodable, Equatable {
        var context = Presentation.contextURI
        var id: String
        var type = "Collection"
        var label: LanguageMap
        var summary: LanguageMap?
        var rights: String?
        var requiredStatement: LabelValue?
        /// A page of a large gallery names the Collection it is part of.
        var partOf: [Reference]?
        var items: [Reference]

        enum CodingKeys: String, CodingKey {
            case context = "@context"
            case id, type, label, summary, rights, requiredStatement, partOf, items
        }
    }
}
