import CurlClient
import GitHub
import GitHubDouble
import HTTP
import HTTPServer
import Paging
import Synchronization
import TestSupport
import Testing

@testable import App

/// Reading the next search page ahead: when the reader nears the end of the cached pages, and only
/// while the search budget is plentiful. The app's handler is called directly and reaches the double
/// through an in-process transport.
@Suite("Read-ahead", .timeLimit(.minutes(6)))
struct ReadAheadTests {
  /// 1,500 repositories (so `stars:>=0` reaches the 1,000-result cap), no latency. Its rate window
  /// runs on the app's stopped clock: on the system clock it reset when a loaded run took a minute,
  /// and a budget spent on purpose came back.
  static func double(searchLimit: Int = 1_000_000) -> GitHubDouble {
    AppHarness.smallDouble(time: AppHarness.stoppedWall) { $0.searchLimitPerMinute = searchLimit }
  }

  static func app(_ double: GitHubDouble, readAhead: Int = 40) throws -> RepoScrollApp {
    var configuration = try AppHarness.baseConfiguration(api: AppHarness.inProcessBase)
    configuration.accessLog = false
    configuration.readAhead = readAhead
    return try RepoScrollApp(
      configuration: configuration, transport: InProcessTransport(handler: double.handler),
      time: AppHarness.stoppedWall, log: { _ in })
  }

  static func get(_ app: RepoScrollApp, _ target: String) async throws -> String {
    let response = try await InProcessTests.get(app, target)
    expectEqual(response.status.code, 200, "\(target) answered \(response.status)")
    return String(decoding: response.body, as: UTF8.self)
  }

  /// Waits (up to 10 s) until the double has served `count` searches; false if it never does.
  static func searches(_ double: GitHubDouble, reach count: Int) async throws -> Bool {
    await eventually { double.counters().calls(.search) >= count }
  }

  /// Best match: GitHub's own order, read by page up to its cap.
  static let list = "stars%3A%3E%3D0"
  /// By stars: read by windows of the key.
  static let byStars = "stars%3A%3E%3D0&sort=stars&order=desc"

  @Test func theNextPageIsFetchedWhenTheReaderNearsTheEndOfTheCachedOnes() async throws {
    let double = Self.double()
    let app = try Self.app(double)
    _ = try await Self.get(app, "/?q=\(Self.list)")
    for after in [20, 40] { _ = try await Self.get(app, "/fragments/results?q=\(Self.list)&after=\(after)") }
    expectEqual(double.counters().calls(.search), 1, "rows 1–60 need only page 1")
    expectEqual(app.readAhead.count(.started), 0)
    _ = try await Self.get(app, "/fragments/results?q=\(Self.list)&after=60")
    expectEqual(app.readAhead.count(.started), 1)
    expectTrue(try await Self.searches(double, reach: 2), "page 2 is read ahead without a request for it")
    let html = try await Self.get(app, "/fragments/results?q=\(Self.list)&after=100")
    expectEqual(HTMLScan.cards(html).map(\.position), Array(101...120))
    expectEqual(double.counters().calls(.search), 2, "the batch needing page 2 found it cached")
    let metrics = try await Self.get(app, "/metrics")
    expectTrue(metrics.contains("reposcroll_read_ahead_total{outcome=\"started\"} 1"))
  }

  @Test func aPageStartedWhileFreshIsNotConsideredAgain() async throws {
    let double = Self.double()
    let app = try Self.app(double)
    _ = try await Self.get(app, "/?q=\(Self.list)")
    _ = try await Self.get(app, "/fragments/results?q=\(Self.list)&after=60")
    expectTrue(try await Self.searches(double, reach: 2))
    // Rows 81–100 also lead into page 2, which is already on its way or cached.
    _ = try await Self.get(app, "/fragments/results?q=\(Self.list)&after=80")
    expectEqual(app.readAhead.count(.started), 1)
    expectEqual(app.readAhead.count(.recent), 1)
    expectEqual(double.counters().calls(.search), 2)
  }

  @Test func aStartedPageIsConsideredAgainOnceItsLifetimeHasPassed() async throws {
    let double = Self.double()
    let client = try Self.app(double).client
    let clock = ManualClock(epochSeconds: 1_000)
    let readAhead = ReadAhead(client: client, lead: 40, freshFor: 60, time: clock.time)
    let batch = ListBatch<Repository>(cursor: 60, items: [], nextCursor: 80, total: 1000, state: .items)
    let query = SearchQuery(text: "stars:>=0")
    await readAhead.consider(batch, query: query)
    clock.advance(59)
    await readAhead.consider(batch, query: query)
    expectEqual(readAhead.count(.started), 1)
    expectEqual(readAhead.count(.recent), 1)
    clock.advance(1)
    await readAhead.consider(batch, query: query)
    expectEqual(readAhead.count(.started), 2)
    await readAhead.consider(
      ListBatch(cursor: 60, items: [], nextCursor: 80, total: 1000, state: .items),
      query: SearchQuery(text: "stars:>=1"))
    expectEqual(readAhead.count(.started), 3, "another query's page is its own")
  }

  @Test func aLowSearchBudgetIsKeptForReadersOwnRequests() async throws {
    let double = Self.double(searchLimit: 30)
    let app = try Self.app(double)
    _ = try await Self.get(app, "/?q=\(Self.list)")
    // 30 a minute: after 24 more calls only 5 remain, and one more would leave 4, under a fifth.
    for page in 2...25 {
      _ = try await app.client.searchRepositories(
        SearchQuery(text: "stars:>=\(page)"), page: 1, perPage: 100)
    }
    let before = double.counters().calls(.search)
    _ = try await Self.get(app, "/fragments/results?q=\(Self.list)&after=60")
    expectEqual(app.readAhead.count(.budget), 1)
    expectEqual(app.readAhead.count(.started), 0)
    _ = try await Self.get(app, "/fragments/results?q=\(Self.list)&after=80")
    expectEqual(double.counters().calls(.search), before, "nothing was read ahead")
    let html = try await Self.get(app, "/fragments/results?q=\(Self.list)&after=100")
    expectEqual(HTMLScan.cards(html).count, 20, "the reader still gets page 2 on demand")
    expectEqual(double.counters().calls(.search), before + 1)
  }

  @Test func aThousandRowWalkStillCostsTenSearchCalls() async throws {
    let double = Self.double()
    let app = try Self.app(double)
    var html = try await Self.get(app, "/?q=\(Self.list)")
    var rows = HTMLScan.cards(html).count
    while rows < 1000, let next = HTMLScan.nextFragment(html) {
      html = try await Self.get(app, next)
      rows += HTMLScan.cards(html).count
    }
    expectEqual(rows, 1000)
    expectTrue(app.readAhead.count(.started) > 0)
    // Nothing past GitHub's own order is read before a reader asks for it.
    expectEqual(double.counters().calls(.search), 10)
  }

  @Test func theNextWindowIsReadAheadWhenTheReaderNearsTheEndOfTheFirst() async throws {
    let double = Self.double()
    let app = try Self.app(double)
    let first = try await Self.get(app, "/?q=\(Self.byStars)")
    expectEqual(double.counters().calls(.search), 1)
    // Window 1 lists the rows of page 1 above its last row's star count; read ahead once the
    // reader's next 40 rows reach past them.
    var html = first
    var rows = HTMLScan.cards(html).count
    while app.readAhead.count(.started) == 0, let next = HTMLScan.nextFragment(html) {
      html = try await Self.get(app, next)
      rows += HTMLScan.cards(html).count
      try #require(rows <= 100, "read-ahead started within the first window")
    }
    expectTrue(rows > 40)
    expectTrue(try await Self.searches(double, reach: 2), "window 2 is read ahead without a request for it")
    while rows < 140, let next = HTMLScan.nextFragment(html) {
      html = try await Self.get(app, next)
      rows += HTMLScan.cards(html).count
    }
    expectEqual(next(html)?.contains("&stars=*.."), true, "past window 1, links name a window")
    let calls = double.counters().calls(.search)
    expectTrue(calls >= 2 && calls <= 3, "window 2 was read once, ahead; at most window 3 ahead of it")
  }

  func next(_ html: String) -> String? { HTMLScan.nextFragment(html) }

  @Test(
    "the budget rule: a fifth of the window stays for readers",
    arguments: [(30, 8, true), (30, 7, true), (30, 6, false), (10, 3, true), (10, 2, false), (0, 0, false)])
  func budget(limit: Int, remaining: Int, allowed: Bool) {
    let snapshot = RateLimitSnapshot(resource: .search, limit: limit, remaining: remaining, reset: 2_000)
    expectEqual(ReadAhead.allows(snapshot, now: 1_000), allowed)
  }

  @Test func anUnknownOrResetWindowAllowsAndASecondaryLimitForbids() {
    expectTrue(ReadAhead.allows(nil, now: 1_000))
    expectTrue(
      ReadAhead.allows(RateLimitSnapshot(resource: .search, limit: 30, remaining: 0, reset: 999), now: 1_000)
    )
    expectTrue(
      !ReadAhead.allows(
        RateLimitSnapshot(resource: .search, limit: 30, remaining: 30, reset: 2_000, secondaryUntil: 1_060),
        now: 1_000))
  }
}
