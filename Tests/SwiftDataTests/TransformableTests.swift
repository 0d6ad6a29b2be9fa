import Foundation
import SwiftData
import Testing

/// A color that is not `Codable`, as UIColor is not, stored through a transformer.
final class Paint: NSObject {
    let red: UInt8, green: UInt8, blue: UInt8
    init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }
    override func isEqual(_ object: Any?) -> Bool {
        (object as? Paint).map { ($0.red, $0.green, $0.blue) == (red, green, blue) } ?? false
    }
}

final class PaintTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? {
        guard let paint = value as? Paint else { return nil }
        return Data([paint.red, paint.green, paint.blue])
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data, data.count == 3 else { return nil }
        return Paint(red: data[0], green: data[1], blue: data[2])
    }
}

/// The secure-unarchiving transformer for string lists, as apps subclass it for their classes.
final class TagListTransformer: NSSecureUnarchiveFromDataTransformer {
    override class var allowedTopLevelClasses: [AnyClass] { [NSArray.self, NSString.self] }
}

@Model final class Canvas {
    var title: String
    @Attribute(.transformable(by: PaintTransformer.self)) var background: Paint
    @Attribute(.transformable(by: "CanvasPaintByName")) var border: Paint?
    @Attribute(.transformable(by: TagListTransformer.self)) var tags: NSArray

    init(title: String, background: Paint, border: Paint? = nil, tags: [String] = []) {
        self.title = title
        self.background = background
        self.border = border
        self.tags = tags as NSArray
    }
}

@Model final class Sketch {
    @Attribute(.transformable(by: "NoSuchTransformer")) var paint: Paint
    init(paint: Paint) { self.paint = paint }
}

@Suite struct TransformableTests {
    @Test func transformedValuesRoundTripThroughTheStore() throws {
        ValueTransformer.setValueTransformer(PaintTransformer(), forName: NSValueTransformerName("CanvasPaintByName"))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("canvas-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let context = ModelContext(try ModelContainer(for: Canvas.self, configurations: ModelConfiguration(url: url)))
            context.insert(Canvas(title: "Sunset", background: Paint(red: 250, green: 120, blue: 0), tags: ["warm", "sky"]))
            context.insert(Canvas(title: "Night", background: Paint(red: 0, green: 0, blue: 40), border: Paint(red: 255, green: 255, blue: 255)))
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Canvas.self, configurations: ModelConfiguration(url: url)))
        let canvases = try context.fetch(FetchDescriptor<Canvas>(sortBy: [SortDescriptor(\.title)]))
        #expect(canvases.map(\.title) == ["Night", "Sunset"])
        #expect(canvases[0].background == Paint(red: 0, green: 0, blue: 40))
        #expect(canvases[0].border == Paint(red: 255, green: 255, blue: 255))
        #expect(canvases[1].border == nil)
        #expect(canvases[1].tags as? [String] == ["warm", "sky"])

        canvases[1].background = Paint(red: 1, green: 2, blue: 3)
        try context.save()
        let again = ModelContext(context.container)
        #expect(try again.fetch(FetchDescriptor<Canvas>(predicate: #Predicate { $0.title == "Sunset" })).first?.background == Paint(red: 1, green: 2, blue: 3))
    }

    @Test func aTransformerNameNothingIsRegisteredAsFailsTheSaveAndWritesNothing() throws {
        let container = try ModelContainer(for: Sketch.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Sketch(paint: Paint(red: 0, green: 0, blue: 0)))
        #expect(throws: ModelKitError.self) { try context.save() }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Sketch>()) == 0)
    }

    @Test func standardTransformersAreRegisteredByName() throws {
        let negate = try #require(ValueTransformer(forName: .negateBooleanTransformerName))
        #expect(negate.transformedValue(true) as? Bool == false)
        #expect(ValueTransformer(forName: .isNilTransformerName)?.transformedValue(nil) as? Bool == true)
        let secure = try #require(ValueTransformer(forName: .secureUnarchiveFromDataTransformerName))
        let archived = try #require(secure.reverseTransformedValue(NSString(string: "hi")) as? Data)
        #expect(secure.transformedValue(archived) as? String == "hi")
    }
}
