// swift-tools-version:6.0
// The extension SDK as a package of its own: what an out-of-process extension links
// (docs/EXTENSIONS.md, docs/TUTORIAL-first-extension.md), without the recorder's package
// dependencies. An extension's package depends on it by path:
//     .package(path: "<RecordKit checkout>/Extensions/SDK")
//     .product(name: "RecordKitExtensionSDK", package: "SDK")
// Its Sources/ are symbolic links to the root package's targets (one copy of each source):
// the SDK and what it imports, Foundation and Glibc only. DependencyRulesTests checks that
// this list is the SDK's whole closure in the root package.
import PackageDescription

let package = Package(
    name: "RecordKitSDK",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "RecordKitExtensionSDK", targets: ["RecordKitExtensionSDK"]),
    ],
    targets: [
        .target(name: "RecordKit", path: "Sources/RecordKit"),
        .target(name: "RecordKitSupport", path: "Sources/RecordKitSupport"),
        .target(name: "CShims", path: "Sources/CShims"),
        .target(name: "RecordKitExtensionSDK", dependencies: ["RecordKitSupport", "RecordKit", "CShims"],
                path: "Sources/RecordKitExtensionSDK"),
    ]
)
