// swift-tools-version:6.0
// A package that depends on a release of AppState, as its users' packages do. scripts/check-consumer
// points it at a tagged clone of this repository through APPSTATE_PACKAGE_URL.
import Foundation
import PackageDescription

let appState = ProcessInfo.processInfo.environment["APPSTATE_PACKAGE_URL"] ?? "https://github.com/appstate/AppState"

let package = Package(
    name: "consumer",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [.package(url: appState, from: "1.0.0")],
    targets: [
        .executableTarget(
            name: "App",
            dependencies: [
                .product(name: "AppState", package: "AppState"),
                // Apple platforms have Apple's SwiftData; elsewhere `import SwiftData` is ModelKit.
                .product(name: "SwiftData", package: "AppState", condition: .when(platforms: [.linux, .windows, .android])),
            ])
    ],
    swiftLanguageModes: [.v6]
)
