// swift-tools-version:6.0
import CompilerPluginSupport
import Foundation
import PackageDescription

// Where the macros get SwiftSyntax.
//
// - As the root package (this repository's own `swift build` and `swift test`, CI, machines
//   without network) the macros build against the toolchain's own SwiftSyntax, in
//   `<toolchain>/usr/lib/swift/host`: no download, and a first build with no swift-syntax to
//   compile. That needs unsafe flags (`-I`, `-L`, `-rpath`), which SwiftPM refuses in a package
//   depended on by version.
// - As a dependency (checked out under `.build/checkouts`, or Xcode's `SourcePackages/checkouts`),
//   or where the toolchain has no SwiftSyntax, the macros depend on the swift-syntax package,
//   as macro packages do, with no unsafe flags.
//
// `MODELKIT_SWIFT_SYNTAX=toolchain` or `=package` overrides the choice; `MODELKIT_SWIFTSYNTAX_HOST`
// names the toolchain's SwiftSyntax directory.

let environment = ProcessInfo.processInfo.environment

/// The toolchain's SwiftSyntax directory, if it has one. The manifest process maps
/// `<toolchain>/usr/lib/swift/pm/ManifestAPI/libPackageDescription.so`, so it is found from
/// `/proc/self/maps`, or else beside the `swiftc` on `PATH`.
func toolchainSwiftSyntax() -> String? {
    if let path = environment["MODELKIT_SWIFTSYNTAX_HOST"], !path.isEmpty { return path }
    var candidates: [String] = []
    // `/proc` files report a size of zero, so read the maps line by line rather than by size.
    let marker = "/pm/ManifestAPI/libPackageDescription.so"
    if let maps = fopen("/proc/self/maps", "r") {
        defer { fclose(maps) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        while getline(&line, &capacity, maps) > 0, let line {
            let text = String(cString: line).trimmingCharacters(in: .whitespacesAndNewlines)
            if text.hasSuffix(marker), let start = text.firstIndex(of: "/") {
                candidates.append(String(text[start...].dropLast(marker.count)) + "/host")
                break
            }
        }
        free(line)
    }
    for directory in (environment["PATH"] ?? "").split(separator: ":") {
        let swiftc = URL(fileURLWithPath: String(directory)).appendingPathComponent("swiftc")
        let resolved = swiftc.resolvingSymlinksInPath().deletingLastPathComponent()
        candidates.append(resolved.deletingLastPathComponent().appendingPathComponent("lib/swift/host").path)
    }
    return candidates.first { FileManager.default.fileExists(atPath: $0 + "/SwiftSyntax.swiftmodule") }
}

/// Whether this package is another package's dependency. While resolving versions, SwiftPM reads
/// a dependency's manifest from its repository, as `/Package.swift`; afterwards SwiftPM and Xcode
/// read it from a `checkouts` directory.
let isDependency = Context.packageDirectory == "/"
    || ["/.build/checkouts/", "/SourcePackages/checkouts/"].contains { Context.packageDirectory.contains($0) }

let toolchainHost: String? =
    switch environment["MODELKIT_SWIFT_SYNTAX"] {
    case "package": nil
    case "toolchain": toolchainSwiftSyntax() ?? "/usr/lib/swift/host"
    default: isDependency ? nil : toolchainSwiftSyntax()
    }

/// The macros' SwiftSyntax: the toolchain's libraries by path, or the swift-syntax package's
/// products. A range of swift-syntax releases, one per supported Swift (6.0 to 6.3).
let packageDependencies: [Package.Dependency]
let macroDependencies: [Target.Dependency]
let macroSettings: [SwiftSetting]
let macroLinkerSettings: [LinkerSetting]
let macroTestDependencies: [Target.Dependency]
let macroTestLinkerSettings: [LinkerSetting]
if let host = toolchainHost {
    packageDependencies = []
    macroDependencies = []
    macroSettings = [.unsafeFlags(["-I", host])]
    macroLinkerSettings = [
        .unsafeFlags(["-L", host, "-Xlinker", "-rpath", "-Xlinker", host]),
        .linkedLibrary("SwiftSyntax"),
        .linkedLibrary("SwiftSyntaxMacros"),
        .linkedLibrary("SwiftSyntaxBuilder"),
        .linkedLibrary("SwiftDiagnostics"),
        .linkedLibrary("SwiftCompilerPluginMessageHandling"),
    ]
    macroTestDependencies = []
    macroTestLinkerSettings = macroLinkerSettings + [.linkedLibrary("SwiftSyntaxMacroExpansion"), .linkedLibrary("SwiftParser")]
} else {
    packageDependencies = [.package(url: "https://github.com/swiftlang/swift-syntax", "600.0.0"..<"604.0.0")]
    macroDependencies = [
        .product(name: "SwiftSyntax", package: "swift-syntax"),
        .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
        .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
        .product(name: "SwiftDiagnostics", package: "swift-syntax"),
        .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
    ]
    macroSettings = []
    macroLinkerSettings = []
    macroTestDependencies = [
        .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
        .product(name: "SwiftParser", package: "swift-syntax"),
    ]
    macroTestLinkerSettings = []
}

#if canImport(Darwin)
let isApple = true
#else
let isApple = false
#endif

/// Targets that import SwiftData get Apple's framework on Apple platforms and our re-export elsewhere.
let swiftDataDependency: [Target.Dependency] = isApple ? [] : ["SwiftData"]

/// `MODELKIT_FUZZ=1`, which `scripts/fuzz-sync` sets in a scratch directory of its own, builds
/// the sync server's code with libFuzzer's coverage and AddressSanitizer, and links
/// `modelkit-sync-fuzz` with libFuzzer. Only these targets: `-Xswiftc` would reach the macros'
/// executable too, which cannot link libFuzzer. Unset, the fuzz target replays inputs.
let fuzzing = environment["MODELKIT_FUZZ"] == "1" && !isDependency
let fuzzSwiftSettings: [SwiftSetting] = fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address"])] : []
let fuzzLinkerSettings: [LinkerSetting] = fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address"])] : []

/// Apple platforms ship SQLite as the `SQLite3` module; elsewhere it comes from the system library.
let sqliteDependency: Target.Dependency = .target(
    name: "CSQLite", condition: .when(platforms: [.linux, .windows, .android, .wasi, .openbsd]))

var targets: [Target] = [
    .systemLibrary(
        name: "CSQLite",
        pkgConfig: "sqlite3",
        providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
    ),
    .macro(
        name: "ModelKitMacros",
        dependencies: macroDependencies,
        swiftSettings: macroSettings,
        linkerSettings: macroLinkerSettings
    ),
    .target(
        name: "ModelKit",
        dependencies: [sqliteDependency, "ModelKitMacros"],
        swiftSettings: fuzzSwiftSettings
    ),
    .systemLibrary(
        name: "CLibPQ",
        pkgConfig: "libpq",
        providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
    ),
    .target(name: "ModelKitPostgres", dependencies: ["ModelKit", "CLibPQ"]),
    .systemLibrary(
        name: "CZlib",
        pkgConfig: "zlib",
        providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
    ),
    .target(name: "ModelKitSync", dependencies: ["ModelKit", "CZlib"], swiftSettings: fuzzSwiftSettings),
    .target(name: "AppState", dependencies: swiftDataDependency),
    .executableTarget(
        name: "modelkit-bench", dependencies: ["ModelKit", "ModelKitPostgres", "CLibPQ", sqliteDependency], path: "Benchmarks/modelkit-bench"),
    .executableTarget(
        name: "modelkit-sync-bench", dependencies: ["ModelKit", "ModelKitSync", sqliteDependency], path: "Benchmarks/modelkit-sync-bench"),
    .executableTarget(name: "modelkit-sync-chaos", dependencies: ["SyncChaos"], path: "Benchmarks/modelkit-sync-chaos"),
    .executableTarget(name: "modelkit-load", dependencies: ["ModelKit", "ModelKitPostgres", "CLibPQ"], path: "Benchmarks/modelkit-load"),
    .executableTarget(
        name: "modelkit-sync-server", dependencies: ["ModelKit", "ModelKitPostgres", "ModelKitSync"], path: "Examples/modelkit-sync-server"),
    .executableTarget(name: "appstate-demo", dependencies: ["AppState"], path: "Examples/appstate-demo"),
    .target(name: "Records", dependencies: ["AppState"] + swiftDataDependency, path: "Examples/Records"),
    .executableTarget(name: "records", dependencies: ["Records", "AppState"] + swiftDataDependency, path: "Examples/records"),
    .target(name: "TodoList", dependencies: ["AppState"] + swiftDataDependency, path: "Examples/TodoList"),
    .executableTarget(name: "todo", dependencies: ["TodoList", "AppState", "ModelKitSync"] + swiftDataDependency, path: "Examples/todo"),
    .testTarget(name: "CSQLiteTests", dependencies: ["CSQLite"]),
    .testTarget(
        name: "ModelKitMacrosTests",
        dependencies: ["ModelKitMacros"] + macroTestDependencies,
        swiftSettings: macroSettings,
        linkerSettings: macroTestLinkerSettings
    ),
    .executableTarget(
        name: "modelkit-sync-crash-device", dependencies: ["ModelKit", "ModelKitSync"], path: "Tests/Tools/modelkit-sync-crash-device"),
    .executableTarget(name: "modelkit-crash-writer", dependencies: ["ModelKit"], path: "Tests/Tools/modelkit-crash-writer"),
    // The sync server's fuzz target: a libFuzzer target when built by `scripts/fuzz-sync`, a
    // replayer of its inputs otherwise (the tests replay the seed corpus with it).
    .systemLibrary(name: "CLibFuzzer", path: "Tests/Fuzz/CLibFuzzer"),
    .executableTarget(
        name: "modelkit-sync-fuzz", dependencies: ["ModelKit", "ModelKitSync", "CLibFuzzer"], path: "Tests/Fuzz/modelkit-sync-fuzz",
        swiftSettings: fuzzSwiftSettings, linkerSettings: fuzzLinkerSettings),
    .testTarget(name: "ModelKitTests", dependencies: ["ModelKit", "ModelKitPostgres", "modelkit-crash-writer", "TestSupport", sqliteDependency]),
    .target(name: "TestSupport", path: "Tests/TestSupport"),
    .target(name: "SyncChaos", dependencies: ["ModelKit", "ModelKitSync", "ModelKitPostgres"], path: "Tests/SyncChaos"),
    .testTarget(name: "ModelKitSyncTests", dependencies: [
            "ModelKitSync", "ModelKit", "ModelKitPostgres", "modelkit-sync-server", "modelkit-sync-crash-device", "modelkit-sync-fuzz", "TestSupport", "SyncChaos",
        ]),
    .testTarget(
        name: "AppStateTests",
        dependencies: [
            "AppState", "appstate-demo", "modelkit-crash-writer", "TestSupport",
            .target(name: "ModelKitPostgres", condition: .when(platforms: [.linux])),
        ] + swiftDataDependency),
    .testTarget(name: "RecordsTests", dependencies: ["Records", "records", "AppState", "TestSupport", sqliteDependency] + swiftDataDependency),
    .testTarget(name: "TodoListTests", dependencies: ["TodoList", "todo", "AppState", "ModelKitSync", "TestSupport"] + swiftDataDependency),
]

/// `SwiftData`, ModelKit under the name SwiftData code imports, exists where Apple's does not: on
/// Apple platforms `import SwiftData` is Apple's framework, and this package has no such product.
var products: [Product] = [
    .library(name: "AppState", targets: ["AppState"]),
    .library(name: "ModelKit", targets: ["ModelKit"]),
    .library(name: "ModelKitPostgres", targets: ["ModelKitPostgres"]),
    .library(name: "ModelKitSync", targets: ["ModelKitSync"]),
]
if !isApple {
    targets += [
        .target(name: "SwiftData", dependencies: ["ModelKit"]),
        .testTarget(name: "SwiftDataTests", dependencies: ["SwiftData"]),
        .testTarget(name: "SwiftDataSignatureTests", dependencies: ["SwiftData"]),
    ]
    products.append(.library(name: "SwiftData", targets: ["SwiftData"]))
}

let package = Package(
    name: "AppState",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: products,
    dependencies: packageDependencies,
    targets: targets,
    swiftLanguageModes: [.v6]
)
