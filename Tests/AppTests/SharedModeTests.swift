import App
import Clocks
import CurlClient
import Foundation
import HTTP
import HTTPServer
import Redis
import SharedStore
import TestSupport
import Testing

/// Shared mode as the app shows it: flags, `/healthz`, `/metrics`, and startup errors.
@Suite("Shared mode: configuration, health and metrics", .timeLimit(.minutes(6)))
struct SharedModeTests {
  /// A GitHub that finds nothing.
  struct EmptySearch: HTTPClientTransport {
    func execute(_ request: ClientRequest) async throws(ClientError) -> ClientResponse {
      ClientResponse(
        status: .ok, headers: ["Content-Type": "application/json"],
        body: Array("{\"total_count\":0,\"incomplete_results\":false,\"items\":[]}".utf8))
    }
  }

  static func app(
    _ store: MemoryStore, transport: any HTTPClientTransport = InProcessTests.OfflineTransport()
  )
    throws -> RepoScrollApp
  {
    let configuration = try AppHarness.baseConfiguration(api: AppHarness.inProcessBase)
    return try RepoScrollApp(
      configuration: configuration, transport: transport, sharedStore: store, time: .system, log: { _ in })
  }

  static func get(_ app: RepoScrollApp, _ target: String) async throws -> (HTTPStatus, String) {
    let response = try await InProcessTests.get(app, target)
    return (response.status, String(decoding: response.body, as: UTF8.self))
  }

  @Test func healthAndMetricsShowWhetherTheStoreIsShared() async throws {
    let store = MemoryStore(time: .system)
    let app = try Self.app(store)
    var (status, text) = try await Self.get(app, "/healthz")
    expectTrue(status == .ok && text.hasPrefix("ok\n") && text.contains("shared store: memory available"))
    expectTrue(
      try await Self.get(app, "/metrics").1.contains("reposcroll_shared_store_up{backend=\"memory\"} 1"))

    store.setAvailable(false)
    (status, text) = try await Self.get(app, "/healthz")
    expectEqual(status, .ok, "an instance on local state still serves")
    expectTrue(text.contains("memory unavailable") && text.contains("serving from local state"))
    let metrics = try await Self.get(app, "/metrics").1
    expectTrue(metrics.contains("reposcroll_shared_store_up{backend=\"memory\"} 0"))
    expectTrue(metrics.contains("reposcroll_shared_hits_total 0"))
  }

  @Test func withoutAStoreHealthIsPlainAndMetricsHaveNoStoreLines() async throws {
    let app = try InProcessTests.app()
    let health = try await Self.get(app, "/healthz")
    expectEqual(health.1, "ok\n")
    expectTrue(!(try await Self.get(app, "/metrics").1.contains("reposcroll_shared_store_up")))
  }

  @Test func redisFlagsAndVariables() throws {
    var configuration = AppConfiguration()
    _ = try configuration.parse(
      arguments: ["--redis-timeout", "75"], environment: ["REDIS_URL": "redis://:pw@127.0.0.1:6380/2"])
    expectTrue(configuration.redisURL == "redis://:pw@127.0.0.1:6380/2" && configuration.redisTimeoutMS == 75)
    expectTrue(!configuration.description.contains("pw") && configuration.description.contains("redis: on"))
    var bad = AppConfiguration()
    #expect(throws: AppConfiguration.ConfigurationError.self) {
      try bad.parse(arguments: ["--redis-timeout", "0"], environment: [:])
    }
    expectTrue(
      AppConfiguration.helpText.contains("--redis URL") && AppConfiguration.helpText.contains("REDIS_URL"))
  }

  @Test func redisPasswordsComeFromTheEnvironmentOrFilesNeverAFlag() throws {
    var flagged = AppConfiguration()
    #expect {
      try flagged.parse(arguments: ["--redis", "rediss://:hunter2@10.0.0.5/0"], environment: [:])
    } throws: { error in
      let text = "\(error)"
      return text.contains("--redis") && text.contains("REDIS_PASSWORD") && !text.contains("hunter2")
    }
    var environment = AppConfiguration()
    _ = try environment.parse(
      arguments: ["--redis", "rediss://app@10.0.0.5:6380/1"],
      environment: ["REDIS_PASSWORD": "from-env", "REDIS_SENTINEL_PASSWORD": "s-env"])
    expectTrue(environment.redis.password == "from-env" && environment.redis.sentinelPassword == "s-env")
    let redis = try #require(try RepoScrollApp.redisConfiguration(environment))
    expectTrue(
      redis.username == "app" && redis.password == "from-env" && redis.port == 6380 && redis.tls != nil)
    expectTrue(!environment.description.contains("from-env") && !"\(redis)".contains("from-env"))

    let file = NSTemporaryDirectory() + "redis-password-\(UUID().uuidString.prefix(6))"
    try "from-file\n".write(toFile: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: file) }
    var fromFile = AppConfiguration()
    _ = try fromFile.parse(
      arguments: ["--redis-password-file", file],
      environment: ["REDIS_URL": "redis://:in-url@10.0.0.5/0", "REDIS_PASSWORD": "from-env"])
    try expectEqual(RepoScrollApp.redisConfiguration(fromFile)?.password, "from-file")
    var inURL = AppConfiguration()
    _ = try inURL.parse(arguments: [], environment: ["REDIS_URL": "redis://:in-url@10.0.0.5/0"])
    try expectEqual(RepoScrollApp.redisConfiguration(inURL)?.password, "in-url")
  }

  @Test func sentinelAndTLSFlagsMakeTheClientSettings() throws {
    var configuration = AppConfiguration()
    _ = try configuration.parse(
      arguments: [
        "--redis-sentinels", "10.0.0.5:26379,10.0.0.6:26380", "--redis-master-name", "reposcroll",
        "--redis-sentinel-user", "watcher", "--redis-timeout", "80",
      ], environment: [:])
    expectEqual(configuration.redisURL, "redis://reposcroll/0")
    let redis = try #require(try RepoScrollApp.redisConfiguration(configuration))
    expectTrue(redis.sentinel?.masterName == "reposcroll" && redis.sentinel?.username == "watcher")
    expectEqual(redis.sentinel?.sentinels.map(\.port), [26379, 26380])
    expectTrue(redis.sentinel?.timeout == .milliseconds(300) && redis.commandTimeout == .milliseconds(80))

    var named = AppConfiguration()
    _ = try named.parse(
      arguments: [
        "--redis", "rediss://cache/2", "--redis-sentinels", "10.0.0.5", "--redis-ca-file", "/etc/ca.pem",
      ], environment: [:])
    let tls = try #require(try RepoScrollApp.redisConfiguration(named))
    expectTrue(
      tls.sentinel?.masterName == "cache" && tls.database == 2 && tls.connectTimeout == .milliseconds(500))
    expectEqual(tls.description, "rediss://cache/2 via sentinels 10.0.0.5:26379")

    var nameless = AppConfiguration()
    #expect(throws: AppConfiguration.ConfigurationError.self) {
      try nameless.parse(arguments: ["--redis-sentinels", "10.0.0.5"], environment: [:])
    }
    var badList = AppConfiguration()
    #expect(throws: AppConfiguration.ConfigurationError.self) {
      try badList.parse(arguments: ["--redis-sentinels", "10.0.0.5:x"], environment: [:])
    }
    var plainWithCA = AppConfiguration()
    _ = try plainWithCA.parse(
      arguments: ["--redis", "redis://10.0.0.5/0", "--redis-ca-file", "/x"], environment: [:])
    #expect {
      try RepoScrollApp.redisConfiguration(plainWithCA)
    } throws: { "\($0)".contains("need a rediss:// URL") }
    for flag in [
      "--redis-ca-file", "--redis-cert-file", "--redis-key-file", "--redis-sentinels", "--redis-master-name",
      "--redis-password-file", "--redis-sentinel-password-file", "--redis-session-wait", "REDIS_PASSWORD",
    ] {
      expectTrue(AppConfiguration.helpText.contains(flag), "\(flag) in --help")
    }
  }

  @Test func aMalformedRedisURLStopsStartupNamingTheFlagButNotThePassword() async throws {
    var configuration = AppConfiguration()
    configuration.redisURL = "http://:hunter2@127.0.0.1:6379"
    do {
      _ = try await RepoScrollApp.connectSharedStore(configuration, time: .system) { _ in }
      Issue.record("accepted a non-redis URL")
    } catch {
      expectTrue(error.description.hasPrefix("--redis:") && !error.description.contains("hunter2"))
    }
    configuration.redisURL = nil
    try await expectTrue(RepoScrollApp.connectSharedStore(configuration, time: .system) { _ in } == nil)
  }

  @Test func searchesGoThroughTheSharedStore() async throws {
    let store = MemoryStore(time: .system)
    let app = try Self.app(store, transport: EmptySearch())
    let (status, body) = try await Self.get(app, "/fragments/results?q=nothing&after=0")
    expectEqual(status, .ok, "\(body)")
    expectTrue(store.keys.contains { $0.contains("/search/repositories?q=nothing") }, "\(store.keys)")
  }
}
