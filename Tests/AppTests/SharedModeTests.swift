import App
import CurlClient
import Foundation
import HTTP
import HTTPServer
import SharedStore
import TestSupport
import Testing

/// Shared mode as the app shows it: flags, `/healthz`, `/metrics`, and startup errors.
@Suite("Shared mode: configuration, health and metrics", .timeLimit(.minutes(3)))
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
      configuration: configuration, transport: transport, sharedStore: store, log: { _ in })
  }

  static func get(_ app: RepoScrollApp, _ target: String) async throws -> (HTTPStatus, String) {
    let response = try await InProcessTests.get(app, target)
    return (response.status, String(decoding: response.body, as: UTF8.self))
  }

  @Test func healthAndMetricsShowWhetherTheStoreIsShared() async throws {
    let store = MemoryStore(now: { Date().timeIntervalSince1970 })
    let app = try Self.app(store)
    var (status, text) = try await Self.get(app, "/healthz")
    #expect(status == .ok && text.hasPrefix("ok\n") && text.contains("shared store: memory available"))
    #expect(
      try await Self.get(app, "/metrics").1.contains("reposcroll_shared_store_up{backend=\"memory\"} 1"))

    store.setAvailable(false)
    (status, text) = try await Self.get(app, "/healthz")
    #expect(status == .ok, "an instance on local state still serves")
    #expect(text.contains("memory unavailable") && text.contains("serving from local state"))
    let metrics = try await Self.get(app, "/metrics").1
    #expect(metrics.contains("reposcroll_shared_store_up{backend=\"memory\"} 0"))
    #expect(metrics.contains("reposcroll_shared_hits_total 0"))
  }

  @Test func withoutAStoreHealthIsPlainAndMetricsHaveNoStoreLines() async throws {
    let app = try InProcessTests.app()
    let health = try await Self.get(app, "/healthz")
    #expect(health.1 == "ok\n")
    #expect(!(try await Self.get(app, "/metrics").1.contains("reposcroll_shared_store_up")))
  }

  @Test func redisFlagsAndVariables() throws {
    var configuration = AppConfiguration()
    _ = try configuration.parse(
      arguments: ["--redis-timeout", "75"], environment: ["REDIS_URL": "redis://:pw@127.0.0.1:6380/2"])
    #expect(configuration.redisURL == "redis://:pw@127.0.0.1:6380/2" && configuration.redisTimeoutMS == 75)
    #expect(!configuration.description.contains("pw") && configuration.description.contains("redis: on"))
    var bad = AppConfiguration()
    #expect(throws: AppConfiguration.ConfigurationError.self) {
      try bad.parse(arguments: ["--redis-timeout", "0"], environment: [:])
    }
    #expect(
      AppConfiguration.helpText.contains("--redis URL") && AppConfiguration.helpText.contains("REDIS_URL"))
  }

  @Test func aMalformedRedisURLStopsStartupNamingTheFlagButNotThePassword() async throws {
    var configuration = AppConfiguration()
    configuration.redisURL = "http://:hunter2@127.0.0.1:6379"
    do {
      _ = try await RepoScrollApp.connectSharedStore(configuration) { _ in }
      Issue.record("accepted a non-redis URL")
    } catch {
      #expect(error.description.hasPrefix("--redis:") && !error.description.contains("hunter2"))
    }
    configuration.redisURL = nil
    #expect(try await RepoScrollApp.connectSharedStore(configuration) { _ in } == nil)
  }

  @Test func searchesGoThroughTheSharedStore() async throws {
    let store = MemoryStore(now: { Date().timeIntervalSince1970 })
    let app = try Self.app(store, transport: EmptySearch())
    let (status, body) = try await Self.get(app, "/fragments/results?q=nothing&after=0")
    #expect(status == .ok, "\(body)")
    #expect(store.keys.contains { $0.contains("/search/repositories?q=nothing") }, "\(store.keys)")
  }
}
