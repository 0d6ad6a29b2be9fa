import Foundation

#if !canImport(Darwin)
    // `#Predicate { $0.name.localizedStandardContains("milk") }` expands to
    // `PredicateExpressions.build_localizedStandardContains`, which Apple's Foundation has and
    // swift-foundation does not (yet) on other platforms. This is the same expression, with Apple's
    // names; on Apple platforms Foundation's own is used.

    extension PredicateExpressions {
        /// Whether a string contains another, as `String.localizedStandardContains` says: case- and
        /// diacritic-insensitive, locale-aware. The expression `#Predicate` builds for
        /// `$0.name.localizedStandardContains("milk")`.
        public struct StringLocalizedStandardContains<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
        where Root.Output: StringProtocol, Other.Output: StringProtocol {
            public typealias Output = Bool

            /// The string searched.
            public let root: Root
            /// The string searched for.
            public let other: Other

            public init(root: Root, other: Other) {
                self.root = root
                self.other = other
            }

            public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
                try root.evaluate(bindings).localizedStandardContains(try other.evaluate(bindings))
            }
        }

        /// Builds ``StringLocalizedStandardContains``; called by the code `#Predicate` expands to.
        public static func build_localizedStandardContains<Root, Other>(_ root: Root, _ other: Other)
            -> StringLocalizedStandardContains<Root, Other>
        {
            StringLocalizedStandardContains(root: root, other: other)
        }
    }

    extension PredicateExpressions.StringLocalizedStandardContains: Sendable where Root: Sendable, Other: Sendable {}

    extension PredicateExpressions.StringLocalizedStandardContains: Codable where Root: Codable, Other: Codable {
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(root)
            try container.encode(other)
        }

        public init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            root = try container.decode(Root.self)
            other = try container.decode(Other.self)
        }
    }

    extension PredicateExpressions.StringLocalizedStandardContains: StandardPredicateExpression
    where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}

    extension PredicateExpressions.StringLocalizedStandardContains: CustomStringConvertible {
        public var description: String { "StringLocalizedStandardContains(root: \(root), other: \(other))" }
    }
#endif
