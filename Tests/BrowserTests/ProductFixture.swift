import Foundation
import TestSupport
import Testing

/// `github-double` and `repo-scroll` as real processes plus one Chromium session with the page probe.
struct ProductFixture: Sendable {
  let session: BrowserSession
  let appPort: Int
  let doublePort: Int

  @TaskLocal static var current: ProductFixture?

  /// Cards per batch the app is started with.
  static let batchSize = 20
  /// A query every catalog repository matches, so the list is long (GitHub's 1,000 cap applies).
  static let query = "stars:>=0"

  var baseURL: String { "http://127.0.0.1:\(appPort)" }

  /// The search page for `query`, sorted by stars.
  var searchURL: String { baseURL + "/?q=stars%3A%3E%3D0&sort=stars&order=desc" }

  /// The fixture of the running suite; fails the test when the suite scope did not provide one.
  static func require() throws -> ProductFixture {
    try #require(current, "ProductFixture.current is only set inside a suite marked .productFixture")
  }

  /// Calls the double's control API and returns its JSON.
  @discardableResult
  func double(_ method: String, _ path: String) async throws -> WebDriverJSON {
    let reply = try await WebDriverLoopbackHTTP.exchange(
      port: doublePort, method: method, path: path, body: method == "POST" ? [] : nil, timeout: .seconds(5))
    guard reply.status == 200 else {
      throw WebDriverError.process("double \(method) \(path) answered \(reply.status): \(reply.text)")
    }
    return try WebDriverJSON.parse(Data(reply.body))
  }

  /// Upstream calls the double has counted since the last reset.
  func upstreamCalls() async throws -> (total: Int, search: Int, history: Int, avatar: Int) {
    let counters = try await double("GET", "/_double/counters")
    let endpoints = counters["endpoints"]
    return (
      counters["total"]?.int ?? 0, endpoints?["search"]?["calls"]?.int ?? 0,
      endpoints?["history"]?["calls"]?.int ?? 0, endpoints?["avatar"]?["calls"]?.int ?? 0
    )
  }
}

/// Starts both servers and a session around the product suite, and stops all of them afterwards.
struct ProductFixtureTrait: SuiteTrait, TestScoping {
  func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    let processes = try await AppProcesses.start(
      doubleArguments: ["--latency", "10..60", "--search-limit", "10000", "--core-limit", "100000"],
      appArguments: ["--batch-size", String(ProductFixture.batchSize)])
    do {
      try await Self.requireFragmentRoute(appPort: processes.appPort, server: processes.app)
      try await withBrowserSession { session in
        try await session.installPageProbe()
        let fixture = ProductFixture(
          session: session, appPort: processes.appPort, doublePort: processes.doublePort)
        try await ProductFixture.$current.withValue(fixture) { try await function() }
      }
    } catch {
      await processes.stop()
      throw error
    }
    await processes.stop()
  }

  /// Fails with a clear message while repo-scroll does not serve result fragments yet.
  private static func requireFragmentRoute(appPort: Int, server: ProcessRunner) async throws {
    let path = "/fragments/results?q=stars%3A%3E%3D0&sort=stars&order=desc&after=\(ProductFixture.batchSize)"
    let reply = try await WebDriverLoopbackHTTP.exchange(
      port: appPort, method: "GET", path: path, body: nil, timeout: .seconds(15))
    guard reply.status == 200 else {
      throw WebDriverError.process(
        "repo-scroll answered \(reply.status) for \(path): the product routes are not there yet\n\(server.transcript)"
      )
    }
  }
}

extension Trait where Self == ProductFixtureTrait {
  /// Runs the suite against real github-double and repo-scroll processes with one Chromium session.
  static var productFixture: Self { Self() }
}
