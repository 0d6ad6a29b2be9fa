import SwiftSyntaxMacros
import Testing

@testable import ModelKitMacros

@Suite struct ModelMacroTests {
    let macros: [String: any SwiftSyntaxMacros.Macro.Type] = [
        "Model": ModelMacro.self,
        "_PersistedProperty": PersistedPropertyMacro.self,
        "Transient": MarkerMacro.self,
        "Attribute": MarkerMacro.self,
    ]

    @Test func modelExpandsStoredPropertiesIntoAccessorsSchemaAndRowInitializer() {
        let result = expand(
            """
            @Model
            final class Item {
                var title: String
                @Attribute(.unique) var code: String = "x"
                var count = 0
                @Transient var cache: [Int] = []
                var label: String { title }
                init(title: String) { self.title = title }
            }
            """, with: macros)
        #expect(result.diagnostics.isEmpty)
        // SwiftSyntax's test expansion drops a property's initializer when it adds accessors; the
        // compiler keeps it and runs it through the init accessor (see ModelKitTests).
        #expect(
            result.source == """
                final class Item {
                    var title: String {
                        @storageRestrictions(initializes: _title)
                        init(initialValue) {
                            _title = initialValue
                        }
                        get {
                            _$modelKit.access(self, keyPath: \\.title, column: 0)
                            return _title
                        }
                        set {
                            _$modelKit.mutate(self, keyPath: \\.title, column: 0) {
                                _title = newValue
                            }
                        }
                    }

                    @exclusivity(unchecked) private var _title: String
                    var code: String {
                        @storageRestrictions(initializes: _code)
                        init(initialValue) {
                            _code = initialValue
                        }
                        get {
                            _$modelKit.access(self, keyPath: \\.code, column: 1)
                            return _code
                        }
                        set {
                            _$modelKit.mutate(self, keyPath: \\.code, column: 1) {
                                _code = newValue
                            }
                        }
                    }

                    @exclusivity(unchecked) private var _code: String
                    var count {
                        @storageRestrictions(initializes: _count)
                        init(initialValue) {
                            _count = initialValue
                        }
                        get {
                            _$modelKit.access(self, keyPath: \\.count, column: 2)
                            return _count
                        }
                        set {
                            _$modelKit.mutate(self, keyPath: \\.count, column: 2) {
                                _count = newValue
                            }
                        }
                    }

                    @exclusivity(unchecked) private var _count: Int
                    var cache: [Int] = []
                    var label: String { title }
                    init(title: String) { self.title = title }

                    @exclusivity(unchecked) public final var _$modelKitState = ModelStorage.State()

                    public final var _$modelKit: ModelStorage {
                        withUnsafeMutablePointer(to: &_$modelKitState) {
                            ModelStorage(self, $0)
                        }
                    }

                    public required init(_modelKitRow row: borrowing ModelRow) throws {
                        _title = try row.value(at: 0)
                        _code = try row.value(at: 1)
                        _count = try row.value(at: 2)
                    }

                    public func _modelKitValue(at column: Int) throws -> SQLValue {
                        switch column {
                        case 0:
                            try SQLValue._encode(_title)
                        case 1:
                            try SQLValue._encode(_code)
                        case 2:
                            try SQLValue._encode(_count)
                        default:
                            preconditionFailure("Item has no persisted property at column \\(column)")
                        }
                    }

                    public func _modelKitModels(at column: Int) -> [any PersistentModel] {
                        switch column {
                        default:
                            return []
                        }
                    }

                    public func _modelKitHolds(_ model: AnyObject, at column: Int) -> Bool {
                        switch column {
                        default:
                            return false
                        }
                    }

                    public func _modelKitSet(_ models: [any PersistentModel], at column: Int) {
                        switch column {
                        default:
                            break
                        }
                    }

                    public func _modelKitInclude(_ model: AnyObject, _ isIncluded: Bool, at column: Int) -> Bool {
                        switch column {
                        default:
                            return false
                        }
                    }

                    public static var schemaMetadata: [Schema.PropertyMetadata] {
                        [
                            Schema.PropertyMetadata(name: "title", keyPath: \\Item.title),
                            Schema.PropertyMetadata(name: "code", keyPath: \\Item.code, defaultValue: "x", attribute: Schema.Attribute(.unique)),
                            Schema.PropertyMetadata(name: "count", keyPath: \\Item.count, defaultValue: 0),
                        ]
                    }
                }

                extension Item: PersistentModel {
                }
                """)
    }

    @Test func relationshipPropertiesGetCasesInTheGeneratedAccessorsAndNoteInitialValuesAndPlainValuesDoNot() {
        let result = expand(
            """
            @Model
            final class Note {
                var title: String
                var folder: Folder?
                var tags: [Tag] = []
                init(title: String) { self.title = title }
            }
            """, with: macros)
        #expect(result.diagnostics.isEmpty)
        for line in [
            "case 1:\n            _$modelKit._loadFault(of: self, at: column)\n            return _modelKitRelationshipModels(_folder)",
            "case 2:\n            _$modelKit._loadFault(of: self, at: column)\n            return _modelKitRelationshipHolds(_tags, model)",
            "if let value = _modelKitRelationshipValue(holding: models, as: Swift.type(of: _folder)) {",
            "self.tags = value",
            "@storageRestrictions(initializes: _folder, accesses: _$modelKitState)",
            "return _$modelKit._include(self, keyPath: \\.tags, column: column) {\n                _modelKitRelationshipInclude(model, isIncluded, in: &_tags)",
            "_$modelKitState._noteInitialValue(initialValue)",
            "_$modelKit.mutate(self, keyPath: \\.tags, column: 2, from: _tags, to: newValue) {",
        ] {
            #expect(result.source.contains(line), "\(line)")
        }
        #expect(!result.source.contains("_modelKitRelationshipModels(_title)"))
        #expect(result.source.contains("_modelKitRelationshipInclude(model, isIncluded, in: &_folder)"))
        #expect(!result.source.contains("in: &_title"), "a plain value is never a relationship")
        #expect(result.source.contains("@storageRestrictions(initializes: _title)\n"))
        #expect(result.source.contains("_$modelKit.mutate(self, keyPath: \\.title, column: 0) {"), "a plain value's setter passes no old value")
    }

    @Test func aPropertyWithAnInferredTypeGetsStorageThatStartsWithItsDefault() {
        let result = expand(
            """
            @Model
            final class Entry {
                var date = Date.now
                var amount = Decimal.zero
                init() {}
            }
            """, with: macros)
        #expect(result.diagnostics.isEmpty)
        #expect(result.source.contains("@exclusivity(unchecked) private var _date = Date.now"))
        #expect(result.source.contains("@exclusivity(unchecked) private var _amount = Decimal.zero"))
        #expect(result.source.contains("Schema.PropertyMetadata(name: \"date\", keyPath: \\Entry.date, defaultValue: Date.now)"))
    }

    @Test(arguments: [
        ("@Model struct Item { var x: Int }", "@Model can only be applied to a class"),
        ("@Model enum Kind { case a }", "@Model can only be applied to a class"),
        ("@Model final class Item { @Transient var x: Int }", "@Transient property 'x' needs a default value"),
        ("@Model final class Item { let x: Int }", "persisted property 'x' must be a 'var'"),
        ("@Model final class Item { var x }", "persisted property 'x' needs a type or a default value"),
    ])
    func misuseGetsAClearDiagnostic(source: String, message: String) {
        let result = expand(source, with: macros)
        #expect(result.diagnostics.contains { $0.hasPrefix(message) }, "\(result.diagnostics)")
    }

    @Test func aSubclassOfAModelNumbersItsColumnsAfterItsSuperclassAndPassesTheRestUp() {
        let result = expand(
            """
            @Model
            final class BusinessTrip: Trip {
                var perdiem: Double = 0
                var expenses: [Expense] = []
            }
            """, with: macros, inheritingConformances: true)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let first = "BusinessTrip._modelKitFirstColumnOfBusinessTrip"
        for line in [
            "private static let _modelKitFirstColumnOfBusinessTrip = Trip.schemaMetadata.count",
            "_$modelKit.access(self, keyPath: \\.perdiem, column: \(first) + 0)",
            "_perdiem = try row.value(at: \(first) + 0)\n        _expenses = try row.value(at: \(first) + 1)\n        try super.init(_modelKitRow: row)",
            "public override func _modelKitValue(at column: Int) throws -> SQLValue {\n        switch column - \(first) {",
            "default:\n            try super._modelKitValue(at: column)",
            "default:\n            return super._modelKitModels(at: column)",
            "@storageRestrictions(initializes: _expenses)\n",
            "_expenses = _modelKitInitialValue(initialValue)",
            "public override class var schemaMetadata: [Schema.PropertyMetadata] {",
            "super.schemaMetadata + [\n            Schema.PropertyMetadata(name: \"perdiem\", keyPath: \\BusinessTrip.perdiem, defaultValue: 0),",
            "Schema.PropertyMetadata(name: \"expenses\", keyPath: \\BusinessTrip.expenses, defaultValue: [], notesInitialValue: false),",
        ] {
            #expect(result.source.contains(line), "\(line)")
        }
        #expect(!result.source.contains("ModelStorage.State()"), "the storage is the superclass's")
        #expect(!result.source.contains("extension BusinessTrip"), "the conformance is the superclass's")
    }

    @Test func aClassThatMayHaveSubclassesDescribesItsPropertiesFromTheClassItIsCalledOn() {
        let result = expand("@Model class Trip { var name: String = \"\" }", with: macros)
        #expect(result.source.contains("public class var schemaMetadata"))
        let subclass = expand("@Model class BusinessTrip: Trip { var perdiem: Double = 0 }", with: macros, inheritingConformances: true)
        #expect(subclass.source.contains("return super.schemaMetadata + metadata(Self.self)"))
        #expect(result.source.contains("func metadata<Root: Trip>(_: Root.Type) -> [Schema.PropertyMetadata] {"))
        #expect(result.source.contains("keyPath: \\Root.name"))
        #expect(result.source.contains("return metadata(Self.self)"))
        let spelled = expand("@Model final class Item: PersistentModel { var x: Int = 0 }", with: macros, inheritingConformances: true)
        #expect(spelled.diagnostics.isEmpty && spelled.source.contains("ModelStorage.State()"), "a class that spells its conformance is no subclass")
    }

    @Test func aRootWhoseFirstInheritedTypeMayBeAClassNumbersItsColumnsFromZero() {
        let result = expand("@Model final class Trip: NamedThing { var name: String = \"\" }", with: macros)
        #expect(result.diagnostics.isEmpty)
        #expect(result.source.contains("private static var _modelKitFirstColumnOfTrip: Int {\n        0\n    }"), "\(result.source)")
        #expect(result.source.contains("column: Trip._modelKitFirstColumnOfTrip + 0"))
    }
}

@Suite struct IndexMacroTests {
    @Test func modelListsTheKeyPathGroupsOfItsIndexAndUniqueDeclarations() {
        let macros: [String: any SwiftSyntaxMacros.Macro.Type] = [
            "Model": ModelMacro.self, "Index": IndexMacro.self, "Unique": IndexMacro.self,
        ]
        let result = expand(
            """
            @Model final class Trip {
                #Index<Trip>([\\.name], [\\.start, \\.end])
                var name: String = ""
            }
            """, with: macros)
        #expect(result.diagnostics.isEmpty)
        #expect(result.source.contains(
            "public static var _modelKitIndexes: [[AnyKeyPath]] {\n        ([[\\.name], [\\.start, \\.end]] as [[PartialKeyPath<Trip>]] as [[AnyKeyPath]])"),
            "\(result.source)")
        #expect(!result.source.contains("_modelKitUniqueConstraints"), "a final class without #Unique keeps the protocol's empty list")
    }

    @Test func aSubclassAddsItsIndexesToItsSuperclasses() {
        let macros: [String: any SwiftSyntaxMacros.Macro.Type] = ["Model": ModelMacro.self, "Index": IndexMacro.self]
        let base = expand("@Model class Trip { var name: String = \"\" }", with: macros)
        #expect(base.source.contains("public class var _modelKitIndexes: [[AnyKeyPath]] {\n        []"), "\(base.source)")
        let subclass = expand(
            "@Model final class BusinessTrip: Trip {\n    #Index<BusinessTrip>([\\.perdiem])\n    var perdiem: Double = 0\n}",
            with: macros, inheritingConformances: true)
        #expect(subclass.source.contains(
            "public override class var _modelKitIndexes: [[AnyKeyPath]] {\n        ([[\\.perdiem]] as [[PartialKeyPath<BusinessTrip>]] as [[AnyKeyPath]]) + (super._modelKitIndexes as [[AnyKeyPath]])"),
            "\(subclass.source)")
    }

    @Test func uniqueWithoutAModelTypeGetsAClearDiagnostic() {
        let result = expand("#Unique([\\.name])", with: ["Unique": IndexMacro.self])
        #expect(result.diagnostics.first?.hasPrefix("#Unique needs the model type") == true)
    }
}

@Suite struct ModelActorMacroTests {
    @Test func modelActorAddsAContainerAnExecutorOwningAContextAndAnInitializer() {
        let result = expand("@ModelActor actor Importer {}", with: ["ModelActor": ModelActorMacro.self])
        #expect(result.diagnostics.isEmpty)
        #expect(result.source.contains("public nonisolated let modelContainer: ModelContainer"))
        #expect(result.source.contains("public nonisolated let modelExecutor: any ModelExecutor"))
        #expect(result.source.contains("self.modelExecutor = DefaultSerialModelExecutor(modelContext: modelContext)"))
        #expect(result.source.contains("extension Importer: ModelActor"))
    }

    @Test func modelActorOnAClassGetsAClearDiagnostic() {
        let result = expand("@ModelActor final class Importer {}", with: ["ModelActor": ModelActorMacro.self])
        #expect(result.diagnostics == ["@ModelActor can only be applied to an actor"])
    }
}
