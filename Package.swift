// swift-tools-version:6.2
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .treatWarning("ExplicitSendable", as: .error),
]

let package = Package(
    name: "swift-native-auth",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "NativeAuth", targets: ["NativeAuth"]),
        .library(name: "NativeAuthEmulator", targets: ["NativeAuthEmulator"]),
        .executable(name: "nativeauth", targets: ["NativeAuthDemo"]),
        .executable(name: "nativeauth-benchmarks", targets: ["NativeAuthBenchmarks"]),
    ],
    dependencies: [],
    targets: [
        .target(name: "NativeAuth", swiftSettings: strict),
        .target(name: "NativeAuthEmulator", dependencies: ["NativeAuth"], swiftSettings: strict),
        .executableTarget(
            name: "NativeAuthDemo", dependencies: ["NativeAuth", "NativeAuthEmulator"], swiftSettings: strict),
        .executableTarget(
            name: "NativeAuthBenchmarks", dependencies: ["NativeAuth", "NativeAuthEmulator"], swiftSettings: strict),
        // The test doubles every test target shares: transports, clocks, waits, a seeded generator,
        // raw HTTP, a browser, an OpenID provider and the catalogue of the flows' states. Not a
        // product; built without testability, so it uses the SDK's public and package API only.
        .target(
            name: "NativeAuthTestSupport", dependencies: ["NativeAuth", "NativeAuthEmulator"],
            path: "Tests/NativeAuthTestSupport", swiftSettings: strict),
        .testTarget(
            name: "NativeAuthTests", dependencies: ["NativeAuth", "NativeAuthEmulator", "NativeAuthTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "NativeAuthEmulatorTests", dependencies: ["NativeAuth", "NativeAuthEmulator", "NativeAuthTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "NativeAuthDemoTests",
            dependencies: ["NativeAuthDemo", "NativeAuth", "NativeAuthEmulator", "NativeAuthTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "DocSnippetTests", dependencies: ["NativeAuth", "NativeAuthEmulator", "NativeAuthTestSupport"],
            swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
