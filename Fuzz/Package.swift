// swift-tools-version:6.0
import PackageDescription

// The libFuzzer entry point for PassTap's fuzz targets (`PassTapFuzzTargets` in the main package).
// A package of its own, so `swift build --build-tests` of the main package never builds it; build
// and run it with `scripts/fuzz TARGET SECONDS`, which passes `-sanitize=fuzzer,address`.
let package = Package(
    name: "PassTapFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "PassTap", path: "..")
    ],
    targets: [
        .target(name: "CFuzzDriver"),
        .executableTarget(
            name: "passtap-fuzz",
            dependencies: ["CFuzzDriver", .product(name: "PassTapFuzzTargets", package: "PassTap")]
        ),
    ]
)
