#if !canImport(Darwin)
import Foundation
import Synchronization

/// The name a ``ValueTransformer`` is registered under, as in Foundation.
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The transformer that unarchives a secure-coded object from `Data`.
    public static let secureUnarchiveFromDataTransformerName = NSValueTransformerName("NSSecureUnarchiveFromData")
    /// The transformer that negates a Boolean.
    public static let negateBooleanTransformerName = NSValueTransformerName("NSNegateBoolean")
    /// The transformer that tells whether a value is nil.
    public static let isNilTransformerName = NSValueTransformerName("NSIsNil")
    /// The transformer that tells whether a value is not nil.
    public static let isNotNilTransformerName = NSValueTransformerName("NSIsNotNil")
}

/// Foundation's value transformer, which swift-corelibs-foundation lacks: SwiftData's
/// `@Attribute(.transformable(by:))` stores a property through one. Subclass it and override
/// ``transformedValue(_:)`` (the value to `Data`) and ``reverseTransformedValue(_:)`` (back),
/// or subclass ``NSSecureUnarchiveFromDataTransformer`` for `NSSecureCoding` classes.
///
/// ```swift
/// final class ColorTransformer: ValueTransformer {
///     override class func allowsReverseTransformation() -> Bool { true }
///     override func transformedValue(_ value: Any?) -> Any? { (value as? RGB).map { Data([$0.r, $0.g, $0.b]) } }
///     override func reverseTransformedValue(_ value: Any?) -> Any? { (value as? Data).map { RGB(r: $0[0], g: $0[1], b: $0[2]) } }
/// }
/// ValueTransformer.setValueTransformer(ColorTransformer(), forName: .init("ColorTransformer"))
/// ```
open class ValueTransformer: NSObject {
    nonisolated(unsafe) private static var registry: [NSValueTransformerName: ValueTransformer] = [:]
    private static let lock = Mutex(())

    public required override init() {}

    /// The transformer registered under `name`, or a standard one.
    static func registered(_ name: NSValueTransformerName) -> ValueTransformer? {
        lock.withLock { _ in registry[name] } ?? standard[name]
    }

    /// Registers `transformer` under `name`, or removes the one there when nil.
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        lock.withLock { _ in registry[name] = transformer }
    }

    /// The names of the registered transformers.
    open class func valueTransformerNames() -> [NSValueTransformerName] {
        lock.withLock { _ in Array(registry.keys) } + Array(standard.keys)
    }

    /// The class of the values ``transformedValue(_:)`` returns.
    open class func transformedValueClass() -> AnyClass { NSObject.self }

    /// Whether ``reverseTransformedValue(_:)`` undoes ``transformedValue(_:)``.
    open class func allowsReverseTransformation() -> Bool { false }

    /// `value`, transformed. The base class returns it unchanged.
    open func transformedValue(_ value: Any?) -> Any? { value }

    /// `value`, transformed back; nil unless the class allows reverse transformation.
    open func reverseTransformedValue(_ value: Any?) -> Any? {
        type(of: self).allowsReverseTransformation() ? transformedValue(value) : nil
    }

    nonisolated(unsafe) private static let standard: [NSValueTransformerName: ValueTransformer] = [
        .secureUnarchiveFromDataTransformerName: NSSecureUnarchiveFromDataTransformer(),
        .negateBooleanTransformerName: Predicate { !(($0 as? Bool) ?? false) },
        .isNilTransformerName: Predicate { $0 == nil },
        .isNotNilTransformerName: Predicate { $0 != nil },
    ]

    /// The standard one-way transformers to a Boolean.
    private final class Predicate: ValueTransformer, @unchecked Sendable {
        private let test: (Any?) -> Bool
        init(_ test: @escaping (Any?) -> Bool) {
            self.test = test
            super.init()
        }
        required init() { test = { _ in false } }
        override func transformedValue(_ value: Any?) -> Any? { test(value) }
    }
}

/// How `ValueTransformer(forName:)` returns the registered instance itself, as Foundation's
/// does: a protocol extension's initializer may assign `self`, a class's may not.
public protocol _ValueTransformerLookup {}

extension ValueTransformer: _ValueTransformerLookup {}

extension _ValueTransformerLookup {
    /// The transformer registered under `name`, if any; the standard names are always there.
    public init?(forName name: NSValueTransformerName) {
        guard let transformer = ValueTransformer.registered(name) as? Self else { return nil }
        self = transformer
    }
}

/// Unarchives `NSSecureCoding` objects from `Data` (``transformedValue(_:)``) and archives them
/// back (``reverseTransformedValue(_:)``), as Foundation's. A store applies it in reverse:
/// archiving to write, unarchiving to read. Override ``allowedTopLevelClasses`` to name the
/// classes a subclass unarchives.
open class NSSecureUnarchiveFromDataTransformer: ValueTransformer {
    /// The classes unarchiving may produce at the top level.
    open class var allowedTopLevelClasses: [AnyClass] {
        [NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self, NSData.self, NSURL.self, NSUUID.self, NSNull.self]
    }

    open override class func allowsReverseTransformation() -> Bool { true }
    open override class func transformedValueClass() -> AnyClass { NSObject.self }

    open override func transformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        return try? NSKeyedUnarchiver.unarchivedObject(ofClasses: type(of: self).allowedTopLevelClasses, from: data)
    }

    open override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let value else { return nil }
        return try? NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)
    }
}
#endif
