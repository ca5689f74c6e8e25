import App
import Clocks
import CommandLineOptions
import CurlClient
import Foundation
import GitHubDouble
import HTTP
import TestSupport
import Testing

/// Health, metrics, logging, startup checks and the upstream budget under concurrency.
@Suite("Operations", .serialized, .timeLimit(.minutes(6)))
struct OperationsTests {
  @Test func healthzAnswersOK() async throws {
    try await AppHarness.with { h in
      let response = try await h.get("/healthz")
      expectEqual(response.status.code, 200)
      expectEqual(String(decoding: response.body, as: UTF8.self), "ok\n")
    }
  }

  @Test func metricsCoverRoutesUpstreamCallsCacheAndRateLimits() async throws {
    // Without avatar warming, whose cache traffic would blur the counts asserted here.
    try await AppHarness.with(double: AppHarness.smallDouble(), configure: { $0.warmAvatars = false }) { h in
      _ = try await h.text("/?q=language%3Apython")
      _ = try await h.text("/fragments/results?q=language%3Apython&after=20")
      _ = try await h.get("/nope")
      let metrics = try await h.text("/metrics")
      expectTrue(metrics.contains("reposcroll_http_requests_total{route=\"page\",status=\"200\"} 1"))
      expectTrue(metrics.contains("reposcroll_http_requests_total{route=\"fragment\",status=\"200\"} 1"))
      expectTrue(metrics.contains("reposcroll_http_requests_total{route=\"other\",status=\"404\"} 1"))
      expectTrue(metrics.contains("reposcroll_upstream_calls_total{endpoint=\"search\",status=\"200\"} 1"))
      expectTrue(metrics.contains("reposcroll_upstream_cache_hits_total 1"))
      expectTrue(metrics.contains("reposcroll_ratelimit_remaining{resource=\"search\"} "))
      expectTrue(metrics.contains("reposcroll_http_requests_in_flight 1"))
      expectTrue(metrics.contains("# TYPE reposcroll_http_requests_total counter"))
    }
  }

  @Test func fiftyConcurrentIdenticalFragmentsMakeOneUpstreamCall() async throws {
    let double = AppHarness.smallDouble {
      $0.faults.latency = LatencySpec(perEndpoint: [.search: LatencyRange(fixed: 300)])
    }
    try await AppHarness.with(double: double) { h in
      let bodies = try await withThrowingTaskGroup(of: String.self) { group in
        for _ in 0..<50 {
          group.addTask { try await h.text("/fragments/results?q=language%3Apython&sort=stars&after=20") }
        }
        var all: [String] = []
        for try await body in group { all.append(body) }
        return all
      }
      expectEqual(bodies.count, 50)
      expectEqual(Set(bodies).count, 1, "every request got the same fragment")
      expectEqual(HTMLScan.cards(bodies[0]).count, 20)
      try await expectEqual(h.countedCalls("search"), 1, "GET /_double/counters")
    }
  }

  @Test func everyRequestWritesOneAccessLogLineWithItsQuery() async throws {
    try await AppHarness.with(live: true) { h in
      _ = try await h.text("/fragments/results?q=language%3Apython&after=20")
      _ = try await h.get("/nope")
      // Identity, so the logged size is the page's own (gzip would log the smaller wire size).
      _ = try await h.text("/?q=language%3Apython", headers: ["Accept-Encoding": "identity"])
      // The server logs a request just after answering it.
      expectTrue(await eventually { h.logs.all.count >= 3 })
      let lines = h.logs.all
      expectEqual(lines.count, 3)
      let fragment = try #require(lines.first { $0.contains("/fragments/results") })
      expectTrue(fragment.contains(" GET /fragments/results?q=language%3Apython&after=20 200 "))
      expectTrue(
        fragment.firstMatch(of: #/^[0-9a-f]+-[0-9a-z]+ GET \S+ 200 \d+B \d+\.\d+ms 127\.0\.0\.1$/#) != nil,
        "\(fragment)")
      expectTrue(lines.contains { $0.contains(" GET /nope 404 ") })
      let page = try #require(lines.first { $0.contains("GET /?q=") })
      let bytes = Int(try #require(page.firstMatch(of: #/ 200 (\d+)B /#)).1) ?? 0
      expectTrue(bytes > 10_000, "a streamed page logs its whole size")
    }
  }

  @Test func headRequestsGetHeadersOnly() async throws {
    try await AppHarness.with { h in
      let response = try await h.request(.head, "/?q=language%3Apython")
      expectEqual(response.status.code, 200)
      expectTrue(response.body.isEmpty)
      expectTrue(response.headers["Content-Security-Policy"] != nil)
    }
  }

  @Test func aBrokenTemplateStopsStartupWithFileLineAndColumn() throws {
    try AppHarness.withTemplateCopy { folder, broken in
      try "<p>\n  {{#cards}}oops\n".write(
        toFile: folder + "/partials/cards.mustache", atomically: true, encoding: .utf8)
      let failure = AppHarness.startupFailure(broken) ?? ""
      expectTrue(failure.contains("partials/cards.mustache"))
      expectTrue(failure.contains(":2:"), "\(failure)")
      var configuration = broken
      configuration.templatesDirectory = try ProcessRunner.packageRoot() + "/Templates"
      configuration.publicDirectory = folder + "/nowhere"
      #expect(throws: RepoScrollApp.StartupError.self) {
        _ = try RepoScrollApp(configuration: configuration, time: .system)
      }
    }
  }
}

@Suite("Configuration", .timeLimit(.minutes(6)))
struct ConfigurationTests {
  @Test func flagsAndEnvironmentAreReadAndTheTokenComesFromTheEnvironmentOnly() throws {
    var configuration = AppConfiguration()
    let result = try configuration.parse(
      arguments: ["--port", "0", "--batch-size=30", "--demo"],
      environment: ["GITHUB_TOKEN": "ghp_secret", "PREFETCH_MARGIN": "7", "BATCH_SIZE": "10"])
    expectEqual(result, .run)
    expectEqual(configuration.port, 0)
    expectEqual(configuration.batchSize, 30, "a flag wins over the environment")
    expectEqual(configuration.prefetchMargin, 7)
    expectTrue(configuration.demo)
    expectEqual(configuration.githubToken, "ghp_secret")
    expectTrue(!"\(configuration)".contains("ghp_secret"))
    var dumped = ""
    dump(configuration, to: &dumped)
    expectTrue(!dumped.contains("ghp_secret"))
  }

  @Test(arguments: [
    ["--batch-size", "0"], ["--port", "70000"], ["--nope"], ["--github-api", "ftp://x"], ["--port"],
  ])
  func badFlagsAreRefusedByName(arguments: [String]) {
    var configuration = AppConfiguration()
    #expect(throws: AppConfiguration.ConfigurationError.self) {
      _ = try configuration.parse(arguments: arguments, environment: [:])
    }
  }

  @Test func helpListsEveryFlag() throws {
    var configuration = AppConfiguration()
    guard case .help(let text) = try configuration.parse(arguments: ["--help"], environment: [:]) else {
      Issue.record("--help should print help")
      return
    }
    for flag in ["--port", "--github-api", "--batch-size", "--prefetch-margin", "--demo", "GITHUB_TOKEN"] {
      expectTrue(text.contains(flag))
    }
  }
}
