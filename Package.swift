// swift-tools-version:6.0
import PackageDescription

let upcoming: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "PassTap",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "passtapd", targets: ["passtapd"]),
        .executable(name: "passtap", targets: ["passtap"]),
        // The fuzz targets' logic, for the libFuzzer entry points of the separate package in Fuzz/
        // (built only by scripts/fuzz) and for Tests/FuzzRegressionTests.
        .library(name: "PassTapFuzzTargets", targets: ["PassTapFuzzTargets"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Forwarding (docs/fleet.md): the outbox (SQLite, vendored by sqlite-nio), the webhook client, PostgreSQL.
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    ],
    targets: [
        // C, imported in exactly one backend target each.
        .systemLibrary(
            name: "CPCSCLite",
            pkgConfig: "libpcsclite",
            providers: [.apt(["libpcsclite-dev"])]
        ),
        .systemLibrary(
            name: "CNFC",
            pkgConfig: "libnfc",
            providers: [.apt(["libnfc-dev"])]
        ),
        // zlib (inflate only), for Smart Tap's compressed record bundles; imported by SmartTap alone.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // libxkbcommon and libevdev, for passtap keyboard alone (Sources/Keyboard): layouts and
        // the uinput device. Neither is an X library.
        .systemLibrary(name: "CXKBCommon", pkgConfig: "xkbcommon", providers: [.apt(["libxkbcommon-dev"])]),
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        // passtap keyboard's X11 output: libX11, libX11-xcb, libxkbcommon-x11 and libXtst opened with
        // dlopen, so a headless till's passtap links no X library.
        .target(name: "CKeyboardX11", linkerSettings: [.linkedLibrary("xkbcommon"), .linkedLibrary("dl")]),
        // passtap keyboard (docs/keyboard.md): its settings, layouts, filter and outputs; one home.
        .target(
            name: "PassTapKeyboard",
            dependencies: ["CXKBCommon", "CEvdev", "CKeyboardX11", "ConfigKit", "PassTapCore", "PassTapProtocol",
                .product(name: "TOMLKit", package: "TOMLKit")],
            path: "Sources/Keyboard", swiftSettings: upcoming),
        // <sys/timex.h> (adjtimex), for `status`'s clock check; C library only, nothing to link.
        .systemLibrary(name: "CTimex"),
        // <linux/inet_diag.h> (NETLINK_SOCK_DIAG), for the owner of a loopback TCP peer; headers only.
        .systemLibrary(name: "CSockDiag"),
        // The owner of a loopback TCP peer, asked of the kernel (CSockDiag's inet_diag), for
        // PassTapHTTP. Its own target, without NIO: with CSockDiag and NIO's C modules in one
        // Swift module, MemberImportVisibility found Glibc's socket structs in CNIOLinux.
        .target(name: "SockDiag", dependencies: ["CSockDiag"], swiftSettings: upcoming),

        // Pure Swift protocol core: no C, no NIO.
        .target(name: "ISO7816", swiftSettings: upcoming),
        .target(
            name: "PassTapCore",
            dependencies: ["Wallets", "ISO7816", "VAS", "NDEF", "SmartTap", .product(name: "Logging", package: "swift-log")],
            swiftSettings: upcoming
        ),

        // NDEF: the record codec (NFC Forum NDEF, RTD URI, Text, Smart Poster), with bounds. Pure
        // Swift, no dependencies: the tag layouts that carry it live in PassTapCore.
        .target(name: "NDEF", swiftSettings: upcoming),

        // Google Smart Tap 2.1: the protocol (NEGOTIATE SECURE CHANNEL, GET DATA), the collector
        // key, the decryption (ECDH, HKDF, HMAC, AES-CTR, zlib) and the service objects.
        .target(
            name: "SmartTap",
            dependencies: [
                "ISO7816", "NDEF", "Wallets", "CZlib",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),

        // What both wallets share, Apple VAS and Google Smart Tap: key files (their owner and
        // permission policy, the hand-written P-256 decoder that zeroes what it reads) and the
        // pass/payment mode. Pure Swift, no dependency.
        .target(name: "Wallets", swiftSettings: upcoming),
        .target(
            name: "MetricsKit", dependencies: [.product(name: "CoreMetrics", package: "swift-metrics")], swiftSettings: upcoming),

        // Apple VAS: protocol, decryption and merchant keys. Pure Swift (swift-crypto).
        .target(
            name: "VAS",
            dependencies: ["ISO7816", "Wallets", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: upcoming
        ),

        // Backends: the only targets that import C.
        .target(
            name: "PCSCBackend",
            dependencies: ["PassTapCore", "CPCSCLite", .product(name: "Logging", package: "swift-log")],
            swiftSettings: upcoming
        ),

        .target(
            name: "NFCBackend",
            dependencies: ["PassTapCore", "VASSettings", "ISO7816", "VAS", "CNFC", .product(name: "Logging", package: "swift-log")],
            swiftSettings: upcoming
        ),

        // Socket protocol shared by daemon and CLI.
        .target(
            name: "PassTapProtocol",
            dependencies: ["ForwardSettings",
                "PassTapCore", "ISO7816",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "PassTapServer",
            dependencies: ["WebSettings", "ForwardSettings", "VASSettings", "SmartTapSettings",
                "PassTapCore", "PassTapProtocol", "ISO7816", "CTimex",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: upcoming
        ),
        // The one HTTP/1 listener stack (SwiftNIO) of both TCP listeners, metrics and web: binding,
        // the connection cap, the request guard, the Host check, static files, the WebSocket upgrade.
        .target(
            name: "PassTapHTTP",
            dependencies: [
                "PassTapCore", "SockDiag",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: upcoming
        ),
        // Prometheus metrics derived from the daemon's events, and their HTTP listener.
        .target(
            name: "PassTapMetrics",
            dependencies: ["MetricsSettings", "MetricsKit",
                "PassTapCore", "PassTapHTTP", "PassTapServer",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Features/Metrics/Service",
            swiftSettings: upcoming
        ),
        // The operator dashboard's files (HTML, CSS, JavaScript), embedded; served by the web
        // listener at `GET /`. Pure Swift, no dependency. Files/ holds the sources; the build
        // tool plugin below turns them into raw string literals at build time (no resource bundle
        // to ship, and not `.embedInCode`, whose byte-array literals are slow to compile).
        .target(
            name: "PassTapDashboard",
            exclude: ["Files"],
            swiftSettings: upcoming,
            plugins: ["DashboardEmbedPlugin"]
        ),
        // Writes PassTapDashboard's Files/ as Swift source, with a POSIX shell script (no tool to
        // build): docs/development.md, "The dashboard's files".
        .plugin(name: "DashboardEmbedPlugin", capability: .buildTool(), exclude: ["dashboard-embed.sh"]),
        // The browser listener (`[web] listen`): the dashboard's files and `GET /rpc`, a WebSocket
        // carrying the socket's JSON-RPC through PassTapServer's web sessions, on PassTapHTTP.
        // Apple VAS as the daemon runs it: its series (docs/architecture.md, "Feature slices").
        .target(
            name: "PassTapVAS",
            dependencies: [
                "VAS", "VASSettings", "PassTapCore", "PassTapServer", .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            path: "Sources/Features/VAS/Service",
            swiftSettings: upcoming
        ),
        // Reader feedback (LED, buzzer) as the daemon runs it (docs/feedback.md).
        .target(
            name: "PassTapFeedback",
            dependencies: [
                "FeedbackSettings", "PassTapCore", "PassTapServer", "ISO7816", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Features/Feedback/Service",
            swiftSettings: upcoming
        ),
        .target(
            name: "PassTapWeb",
            dependencies: ["WebSettings", "MetricsKit",
                "PassTapCore", "PassTapProtocol", "PassTapHTTP", "PassTapServer", "PassTapDashboard",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Features/Web/Listener",
            swiftSettings: upcoming
        ),
        // Forwarding chosen events to a fleet: the durable outbox on each till (SQLite through
        // sqlite-nio, written on a thread of its own), and its sinks, webhooks (async-http-client,
        // Standard Webhooks signatures) and PostgreSQL (postgres-nio), each with its own cursor.
        .target(
            name: "PassTapForward",
            dependencies: ["ForwardSettings", "MetricsKit",
                "PassTapCore", "PassTapProtocol", "PassTapServer",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Features/Forward/Service",
            swiftSettings: upcoming
        ),
        // The kit every section reader of passtapd.toml uses: the TOML 1.0 grammar check, the
        // tree copied out of TOMLKit, the table reader that refuses unknown keys, the line finder
        // and the refusal. Core and TOMLKit only, so a feature's settings stay light.
        .target(
            name: "ConfigKit",
            dependencies: ["PassTapCore", "Wallets", .product(name: "TOMLKit", package: "TOMLKit")],
            swiftSettings: upcoming
        ),
        // Each feature's settings half (docs/architecture.md, "Feature slices"): its TOML table's
        // type, its section reader and its reload rows, on Core and ConfigKit (and the pure
        // libraries it names: Wallets, ISO7816, VAS, SmartTap), never NIO.
        .target(
            name: "FeedbackSettings", dependencies: ["PassTapCore", "ConfigKit"], path: "Sources/Features/Feedback/Settings",
            swiftSettings: upcoming),
        .target(
            name: "MetricsSettings", dependencies: ["PassTapCore", "ConfigKit"], path: "Sources/Features/Metrics/Settings",
            swiftSettings: upcoming),
        .target(
            name: "WebSettings", dependencies: ["Wallets", "PassTapCore", "ConfigKit", "MetricsSettings"], path: "Sources/Features/Web/Settings",
            swiftSettings: upcoming),
        .target(
            name: "ForwardSettings", dependencies: ["Wallets", "PassTapCore", "ConfigKit", "ISO7816"], path: "Sources/Features/Forward/Settings",
            swiftSettings: upcoming),
        .target(
            name: "VASSettings", dependencies: ["Wallets", "PassTapCore", "ConfigKit", "ISO7816", "VAS"], path: "Sources/Features/VAS/Settings",
            swiftSettings: upcoming),
        .target(
            name: "SmartTapSettings", dependencies: ["Wallets", "PassTapCore", "ConfigKit", "SmartTap"], path: "Sources/Features/SmartTap/Settings",
            swiftSettings: upcoming),
        .target(
            name: "NDEFSettings", dependencies: ["PassTapCore", "ConfigKit"], path: "Sources/Features/NDEF/Settings",
            swiftSettings: upcoming),
        // passtapd.toml: the core sections and each feature's section reader, assembled into
        // PassTapCore's Configuration, and the slices' part of a tap's plan (SessionFeatures).
        // Its own target so the config fuzz target builds without the daemon.
        .target(
            name: "PassTapConfig",
            dependencies: ["FeedbackSettings", "Wallets", "WebSettings", "ForwardSettings", "MetricsSettings",
                "VASSettings", "SmartTapSettings", "NDEFSettings",
                "PassTapCore", "ConfigKit", "ISO7816", "VAS",
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "PassTapDaemon",
            dependencies: ["PassTapFeedback", "WebSettings", "ForwardSettings", "MetricsSettings", "VASSettings",
                "PassTapCore", "PassTapProtocol", "PassTapConfig", "PassTapServer", "PCSCBackend", "NFCBackend", "VAS", "PassTapMetrics", "PassTapVAS",
                "PassTapWeb", "PassTapForward", "PassTapHTTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: upcoming
        ),
        .executableTarget(
            name: "passtapd",
            dependencies: ["WebSettings", "ForwardSettings", "VASSettings", "SmartTapSettings",
                "PassTapDaemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: upcoming
        ),
        .executableTarget(
            name: "passtap",
            dependencies: ["Wallets", "WebSettings", "ForwardSettings", "PassTapKeyboard",
                "PassTapProtocol", "ISO7816", "PassTapCore", "VAS", "SmartTap",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: upcoming
        ),
        .executableTarget(name: "vas-bench", dependencies: ["VAS", "ISO7816"], swiftSettings: upcoming),

        // Every parser that sees outside bytes, as one function per fuzz target that checks what
        // must hold and throws a FuzzFinding otherwise. No libFuzzer here: Fuzz/ has the entry points.
        .target(
            name: "PassTapFuzzTargets",
            dependencies: [
                "ISO7816", "VAS", "SmartTap", "NDEF", "PassTapCore", "PassTapProtocol", "PassTapServer", "PassTapConfig", "PassTapTestSupport",
                "VASSettings",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),

        // The test kit, shared by the test targets and the fuzz targets (docs/development.md, "The
        // test kit"): a time limit on every wait, `waitUntil`, the test clock, the card doubles;
        // not a product. No network client here: the fuzz build compiles all it reaches.
        .target(
            name: "PassTapTestSupport",
            dependencies: ["ISO7816", "VAS", "PassTapCore"],
            swiftSettings: upcoming
        ),
        // The test kit's network clients, for test targets only: the line client (NDJSON over a
        // Unix socket), the WebSocket client, raw HTTP, and the systemd notify socket.
        .target(
            name: "PassTapTestNetwork",
            dependencies: [
                "PassTapTestSupport", "PassTapProtocol",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),

        .testTarget(name: "ISO7816Tests", dependencies: ["ISO7816"], swiftSettings: upcoming),
        .testTarget(name: "NDEFTests", dependencies: ["NDEF"], resources: [.copy("Vectors")], swiftSettings: upcoming),
        .testTarget(
            name: "SmartTapTests",
            dependencies: [
                "Wallets", "SmartTap", "NDEF", "ISO7816", "VAS",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            resources: [.copy("Vectors")],
            swiftSettings: upcoming
        ),
        .testTarget(name: "PassTapDashboardTests", dependencies: ["PassTapDashboard"], swiftSettings: upcoming),
        .testTarget(
            name: "VASTests",
            dependencies: ["Wallets", "VAS", "ISO7816", .product(name: "Crypto", package: "swift-crypto")],
            resources: [.copy("Vectors")],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "PassTapCoreTests",
            dependencies: ["Wallets", "WebSettings", "MetricsSettings", "VASSettings", "SmartTapSettings", "NDEFSettings", "PassTapConfig",
                "PassTapCore", "PassTapTestSupport", "ISO7816", "VAS", "NDEF", "SmartTap", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"), .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "PassTapProtocolTests",
            dependencies: ["Wallets", "VASSettings", "PassTapProtocol", "PassTapCore", "PassTapTestSupport", "ISO7816", "VAS", "NDEF", .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "PassTapServerTests",
            dependencies: ["Wallets", "PassTapTestNetwork", "WebSettings", "ForwardSettings", "PassTapForward", "PassTapFeedback", "VASSettings", "SmartTapSettings",
                "PassTapServer", "PassTapTestSupport", "PassTapProtocol", "PassTapCore", "ISO7816", "VAS", "SmartTap",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"), .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "NFCBackendTests",
            dependencies: ["NFCBackend", "PassTapCore", "PassTapTestSupport", "ISO7816", "VAS", .product(name: "Logging", package: "swift-log")],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "PassTapWebTests",
            dependencies: [
                "PassTapWeb", "PassTapProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "PassTapKeyboardTests",
            dependencies: ["PassTapKeyboard", "ConfigKit", "PassTapCore", "PassTapTestSupport"],
            swiftSettings: upcoming),
        .testTarget(
            name: "PassTapFeedbackTests",
            dependencies: [
                "PassTapFeedback", "FeedbackSettings", "PassTapCore", "PassTapConfig", "PassTapTestSupport", "ISO7816",
                "PassTapServer", "PassTapProtocol",
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: upcoming),
        .testTarget(
            name: "PassTapForwardTests",
            dependencies: ["Wallets", "ForwardSettings",
                "PassTapForward", "PassTapCore", "PassTapProtocol", "PassTapTestSupport", "VAS", "ISO7816",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "SockDiagTests",
            dependencies: [
                "SockDiag", "PassTapTestSupport", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "PassTapHTTPTests",
            dependencies: [
                "PassTapHTTP", "PassTapCore", "PassTapTestSupport", "PassTapTestNetwork",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "PassTapMetricsTests",
            dependencies: ["Wallets", "PassTapTestNetwork", "MetricsSettings", "VASSettings",
                "PassTapMetrics", "PassTapHTTP", "PassTapCore", "PassTapProtocol", "PassTapTestSupport", "ISO7816", "VAS", "PassTapForward",
                "PassTapWeb", "PassTapVAS",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "PassTapDaemonTests",
            dependencies: ["Wallets", "PassTapTestNetwork", "WebSettings", "ForwardSettings", "MetricsSettings",
                "VASSettings", "SmartTapSettings", "NDEFSettings",
                "PassTapDaemon", "PassTapCore", "PassTapTestSupport", "ISO7816", "VAS", .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: upcoming
        ),
        // Every input the fuzzers found a crash, hang or broken invariant with, run once more.
        .testTarget(
            name: "FuzzRegressionTests",
            dependencies: ["PassTapFuzzTargets"],
            resources: [.copy("Regressions")],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["Wallets", "PassTapTestNetwork", "WebSettings", "ForwardSettings",
                "VASSettings", "SmartTapSettings", "NDEFSettings",
                "PassTapProtocol", "PassTapCore", "PassTapTestSupport", "PCSCBackend", "NFCBackend", "ISO7816", "VAS",
                "PassTapForward",
                .product(name: "Logging", package: "swift-log"), .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
    ]
)
