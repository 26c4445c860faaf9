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
        // What every app links: the SDK and the two small internal targets below it.
        .target(
            name: "NativeAuth",
            dependencies: [
                "AuthSupport", "AuthCrypto",
                // The loopback redirect (RFC 8252 §7.3) is for desktop and command-line apps: iOS,
                // tvOS, watchOS and visionOS builds hold no HTTP server.
                .target(name: "LoopbackHTTP", condition: .when(platforms: [.macOS, .linux])),
            ],
            swiftSettings: strict),
        // A lock, a continuation that hands its value over under it, and a deadline heap, shared by
        // the SDK, the loopback server and the tests.
        .target(name: "AuthSupport", swiftSettings: strict),
        // SHA-256, SHA-512 and signature verification (RS256, PS256, ES256, EdDSA), written for
        // platforms without a crypto library; Apple's frameworks do the checks where they exist.
        .target(name: "AuthCrypto", swiftSettings: strict),
        // The HTTP/1.1 server on 127.0.0.1 under the loopback browser agent and the emulator's server.
        .target(name: "LoopbackHTTP", dependencies: ["AuthSupport"], swiftSettings: strict),
        .target(
            name: "NativeAuthEmulator", dependencies: ["NativeAuth", "AuthSupport", "AuthCrypto", "LoopbackHTTP"],
            swiftSettings: strict),
        .executableTarget(
            name: "NativeAuthDemo", dependencies: ["NativeAuth", "NativeAuthEmulator"], swiftSettings: strict),
        .executableTarget(
            name: "NativeAuthBenchmarks",
            dependencies: ["NativeAuth", "NativeAuthEmulator", "LoopbackHTTP", "AuthCrypto"],
            swiftSettings: strict),
        // The test doubles every test target shares: transports, clocks, waits, a seeded generator,
        // raw HTTP, a browser, an OpenID provider and the catalogue of the flows' states. Not a
        // product; built without testability, so it uses the SDK's public and package API only.
        .target(
            name: "NativeAuthTestSupport",
            dependencies: ["NativeAuth", "NativeAuthEmulator", "AuthSupport", "AuthCrypto", "LoopbackHTTP"],
            path: "Tests/NativeAuthTestSupport", swiftSettings: strict),
        .testTarget(
            name: "NativeAuthTests",
            dependencies: [
                "NativeAuth", "NativeAuthEmulator", "NativeAuthTestSupport", "AuthSupport", "AuthCrypto",
                "LoopbackHTTP",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "NativeAuthEmulatorTests",
            dependencies: [
                "NativeAuth", "NativeAuthEmulator", "NativeAuthTestSupport", "AuthSupport", "AuthCrypto",
                "LoopbackHTTP",
            ],
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
