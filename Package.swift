// swift-tools-version:6.2
import PackageDescription

// No package dependencies by design: only C system libraries (libcurl, zlib, libdeflate, libsodium,
// OpenSSL) are linked.

// The domain code App runs per card and per batch is compiled in release with cross-module
// optimisation: its bodies go into the module, so App specialises and inlines them, and the sources
// need no `@inlinable`/`@usableFromInline`. Paging: the generic list code (`PagedList`'s walk,
// `ListIndex`'s lookups), about 10% of the fragment's CPU without it. GitHub: `RepositoryRows`'
// field reads, a dozen per card, which the default, conservative pass left as calls. `unsafeFlags`
// only stop a package from being used as a versioned dependency, and this application's package is
// never one.
let crossModuleOptimized: [SwiftSetting] = [
  .unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))
]

let package = Package(
  name: "RepoScroll",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "repo-scroll", targets: ["repo-scroll"]),
    .executable(name: "github-double", targets: ["github-double"]),
  ],
  targets: [
    // MARK: C shims
    .target(name: "CEpoll"),
    .target(name: "CBuildInfo"),
    .systemLibrary(
      name: "CCurl",
      pkgConfig: "libcurl",
      providers: [.apt(["libcurl4-openssl-dev"])]
    ),
    .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
    .systemLibrary(name: "CLibdeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
    .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
    .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),

    // MARK: Libraries
    .target(name: "Clocks"),
    .target(name: "Encodings"),
    .target(name: "Digests", dependencies: ["Encodings"]),
    .target(name: "Credentials"),
    .target(name: "Sockets", dependencies: ["CEpoll", "Clocks"]),
    .target(name: "HTTP", dependencies: ["Encodings"]),
    .target(name: "CommandLineOptions"),
    .target(
      name: "HTTPServer", dependencies: ["Clocks", "Compression", "Digests", "Encodings", "HTTP", "Sockets"]),
    .target(name: "Mustache"),
    .target(name: "CurlClient", dependencies: ["CCurl", "Clocks", "HTTP"]),
    .target(name: "SharedStore", dependencies: ["Clocks"]),
    .target(name: "RedisSharedStore", dependencies: ["Clocks", "Redis", "SharedStore"]),
    .target(name: "Packing"),
    .target(
      name: "GitHub",
      dependencies: [
        "Clocks", "Credentials", "CurlClient", "Digests", "Encodings", "HTTP", "Packing", "SharedStore",
      ],
      swiftSettings: crossModuleOptimized),
    .target(name: "Paging", swiftSettings: crossModuleOptimized),
    .target(name: "Sealing", dependencies: ["CSodium"]),
    .target(name: "Compression", dependencies: ["CZlib", "CLibdeflate"]),
    .target(
      name: "GitHubDouble",
      dependencies: ["Clocks", "Compression", "Digests", "Encodings", "HTTP", "HTTPServer"]),
    .target(name: "TLS", dependencies: ["COpenSSL"]),
    .target(name: "Redis", dependencies: ["Clocks", "Digests", "Encodings", "Sockets", "TLS"]),
    .target(
      name: "Sessions",
      dependencies: ["Clocks", "Credentials", "Encodings", "Redis", "Sealing", "SharedStore"]),
    .target(
      name: "App",
      dependencies: [
        "HTTP", "HTTPServer", "Mustache", "Paging", "CurlClient", "GitHub", "Compression", "SharedStore",
        "Redis", "CommandLineOptions", "Sessions", "CBuildInfo", "Clocks", "TLS", "Credentials", "Digests",
        "Encodings", "RedisSharedStore",
      ]),

    // MARK: Executables
    .executableTarget(
      name: "repo-scroll",
      dependencies: ["App", "Clocks", "CommandLineOptions", "GitHubDouble", "RedisSharedStore", "Sockets"]),
    .executableTarget(
      name: "github-double", dependencies: ["Clocks", "GitHubDouble", "CommandLineOptions", "Sockets"]),
    .executableTarget(
      name: "static-server", dependencies: ["Clocks", "HTTP", "HTTPServer", "CommandLineOptions", "Sockets"]),
    .executableTarget(name: "redis-bench", dependencies: ["Clocks", "Redis", "TLS"], path: "Bench/redis"),
    .executableTarget(
      name: "session-bench", dependencies: ["Clocks", "Credentials", "GitHub", "Sessions", "Redis"],
      path: "Bench/sessions"),
    // The fragment's render path (script/bench-mustache); it reads the app's internals, so it builds
    // in debug (as `swift build` does) or in release with -enable-testing.
    .executableTarget(
      name: "mustache-bench",
      dependencies: ["App", "Clocks", "GitHub", "GitHubDouble", "HTTP", "HTTPServer", "Mustache", "Paging"],
      path: "Bench/mustache"),

    // MARK: Tests
    .target(
      name: "TestSupport", dependencies: ["Clocks", "HTTP", "HTTPServer", "Redis", "TLS"],
      path: "Tests/TestSupport"),
    .testTarget(name: "HTTPTests", dependencies: ["Clocks", "Digests", "Encodings", "HTTP", "TestSupport"]),
    .testTarget(name: "DigestsTests", dependencies: ["Digests", "Encodings", "TestSupport"]),
    .testTarget(name: "CommandLineOptionsTests", dependencies: ["CommandLineOptions", "TestSupport"]),
    .testTarget(name: "SocketsTests", dependencies: ["Clocks", "Sockets", "TestSupport"]),
    .testTarget(
      name: "HTTPServerTests", dependencies: ["Clocks", "HTTP", "HTTPServer", "Compression", "TestSupport"]),
    .testTarget(name: "MustacheTests", dependencies: ["Mustache", "TestSupport"]),
    .testTarget(
      name: "CurlClientTests", dependencies: ["Clocks", "CurlClient", "HTTP", "HTTPServer", "TestSupport"]),
    .testTarget(
      name: "GitHubTests",
      dependencies: [
        "Clocks", "GitHub", "CurlClient", "HTTP", "Packing", "SharedStore", "TestSupport", "Redis",
        "GitHubDouble",
        "Credentials", "Encodings", "RedisSharedStore",
      ]),
    .testTarget(name: "PagingTests", dependencies: ["Paging", "TestSupport"]),
    .testTarget(name: "CompressionTests", dependencies: ["Compression", "CZlib", "TestSupport"]),
    .testTarget(name: "RedisTests", dependencies: ["Clocks", "Redis", "Sockets", "TestSupport", "TLS"]),
    .testTarget(
      name: "GitHubDoubleTests",
      dependencies: [
        "Clocks", "GitHubDouble", "Compression", "Encodings", "HTTP", "HTTPServer", "TestSupport",
      ]),
    .testTarget(
      name: "AppTests",
      dependencies: [
        "App", "CommandLineOptions", "GitHub", "GitHubDouble", "CurlClient", "HTTP", "HTTPServer",
        "Compression", "SharedStore", "Mustache", "Paging", "TestSupport", "Sessions", "Clocks", "Redis",
        "Credentials", "Digests", "Encodings",
      ]
    ),
    .testTarget(
      name: "HostileUpstreamTests",
      dependencies: ["CurlClient", "Encodings", "GitHubDouble", "HTTP", "TestSupport"]
    ),
    .testTarget(name: "EndToEndTests", dependencies: ["CurlClient", "HTTP", "TestSupport"]),
    .testTarget(name: "BrowserTests", dependencies: ["TestSupport"]),
    .testTarget(
      name: "SharedStoreTests",
      dependencies: ["Clocks", "SharedStore", "RedisSharedStore", "Redis", "TestSupport"]),
    .testTarget(
      name: "ClusterTests", dependencies: ["Clocks", "CurlClient", "HTTP", "Redis", "TestSupport"]),
    .testTarget(
      name: "SessionsTests",
      dependencies: [
        "Clocks", "Sessions", "Credentials", "Encodings", "GitHub", "Redis", "Sealing", "TestSupport",
      ]),
    .testTarget(name: "SealingTests", dependencies: ["Sealing", "TestSupport"]),
    .testTarget(name: "TLSTests", dependencies: ["TLS", "TestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)

// Every Swift target (not the C ones) writes existentials as `any P` and imports each module whose
// members it uses, so a file's imports say what it depends on.
for target in package.targets where target.type != .system && target.name != "CEpoll" {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [
      .enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
