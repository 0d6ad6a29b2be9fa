// swift-tools-version:6.0
import CompilerPluginSupport
import Foundation
import PackageDescription

/// The toolchain's SwiftSyntax lives in `<toolchain>/usr/lib/swift/host`. The manifest process maps
/// `<toolchain>/usr/lib/swift/pm/ManifestAPI/libPackageDescription.so`, so the host directory is
/// found from `/proc/self/maps`, or else beside the `swiftc` on `PATH`.
/// `MODELKIT_SWIFTSYNTAX_HOST` overrides both.
func swiftSyntaxHostDirectory() -> String {
    let environment = ProcessInfo.processInfo.environment
    if let path = environment["MODELKIT_SWIFTSYNTAX_HOST"], !path.isEmpty {
        return path
    }
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
        ?? "/usr/lib/swift/host"
}

let host = swiftSyntaxHostDirectory()
let swiftSyntaxCompilerFlags: [SwiftSetting] = [.unsafeFlags(["-I", host])]
let swiftSyntaxLinkerFlags: [LinkerSetting] = [
    .unsafeFlags(["-L", host, "-Xlinker", "-rpath", "-Xlinker", host]),
    .linkedLibrary("SwiftSyntax"),
    .linkedLibrary("SwiftSyntaxMacros"),
    .linkedLibrary("SwiftSyntaxBuilder"),
    .linkedLibrary("SwiftDiagnostics"),
    .linkedLibrary("SwiftCompilerPluginMessageHandling"),
]

#if canImport(Darwin)
let isApple = true
#else
let isApple = false
#endif

/// Targets that import SwiftData get Apple's framework on Apple platforms and our re-export elsewhere.
let swiftDataDependency: [Target.Dependency] = isApple ? [] : ["SwiftData"]

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
        swiftSettings: swiftSyntaxCompilerFlags,
        linkerSettings: swiftSyntaxLinkerFlags
    ),
    .target(
        name: "ModelKit",
        dependencies: [sqliteDependency, "ModelKitMacros"]
    ),
    .systemLibrary(
        name: "CLibPQ",
        pkgConfig: "libpq",
        providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
    ),
    .target(name: "ModelKitPostgres", dependencies: ["ModelKit", "CLibPQ"]),
    .target(name: "AppState", dependencies: swiftDataDependency),
    .executableTarget(
        name: "modelkit-bench", dependencies: ["ModelKit", "ModelKitPostgres", "CLibPQ", sqliteDependency], path: "Benchmarks/modelkit-bench"),
    .executableTarget(name: "appstate-demo", dependencies: ["AppState"], path: "Examples/appstate-demo"),
    .target(name: "Records", dependencies: ["AppState"] + swiftDataDependency, path: "Examples/Records"),
    .executableTarget(name: "records", dependencies: ["Records", "AppState"] + swiftDataDependency, path: "Examples/records"),
    .target(name: "TodoList", dependencies: ["AppState"] + swiftDataDependency, path: "Examples/TodoList"),
    .executableTarget(name: "todo", dependencies: ["TodoList", "AppState"] + swiftDataDependency, path: "Examples/todo"),
    .testTarget(name: "CSQLiteTests", dependencies: ["CSQLite"]),
    .testTarget(
        name: "ModelKitMacrosTests",
        dependencies: ["ModelKitMacros"],
        swiftSettings: swiftSyntaxCompilerFlags,
        linkerSettings: swiftSyntaxLinkerFlags + [.linkedLibrary("SwiftSyntaxMacroExpansion"), .linkedLibrary("SwiftParser")]
    ),
    .executableTarget(name: "modelkit-crash-writer", dependencies: ["ModelKit"], path: "Tests/Tools/modelkit-crash-writer"),
    .testTarget(name: "ModelKitTests", dependencies: ["ModelKit", "ModelKitPostgres", "modelkit-crash-writer", "TestSupport", sqliteDependency]),
    .target(name: "TestSupport", path: "Tests/TestSupport"),
    .testTarget(
        name: "AppStateTests",
        dependencies: [
            "AppState", "appstate-demo", "modelkit-crash-writer", "TestSupport",
            .target(name: "ModelKitPostgres", condition: .when(platforms: [.linux])),
        ] + swiftDataDependency),
    .testTarget(name: "RecordsTests", dependencies: ["Records", "records", "AppState", "TestSupport", sqliteDependency] + swiftDataDependency),
    .testTarget(name: "TodoListTests", dependencies: ["TodoList", "todo", "AppState", "TestSupport"] + swiftDataDependency),
]

if !isApple {
    targets += [
        .target(name: "SwiftData", dependencies: ["ModelKit"]),
        .testTarget(name: "SwiftDataTests", dependencies: ["SwiftData"]),
    ]
}

let package = Package(
    name: "AppState",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "AppState", targets: ["AppState"]),
        .library(name: "ModelKit", targets: ["ModelKit"]),
        .library(name: "ModelKitPostgres", targets: ["ModelKitPostgres"]),
    ],
    targets: targets,
    swiftLanguageModes: [.v6]
)
