import GitHub
import GitHubDouble
import HTTP
import HTTPServer
import TestSupport
import Testing

@testable import App

/// Cache warming for the cards a reader is about to see: avatars of each batch sent, and the star
/// histories just after the one a reader asked for, only while the core budget is plentiful.
@Suite("Warming", .timeLimit(.minutes(6)))
struct WarmingTests {
  static let list = ReadAheadTests.list

  /// Waits (up to 10 s) until `calls` reaches `count`; false if it never does.
  static func reach(_ count: Int, _ calls: () -> Int) async throws -> Bool {
    await eventually { calls() >= count }
  }

  /// The star-history paths of the cards in `html`, in order.
  static func historyPaths(_ html: String) -> [String] {
    html.matches(of: #/data-stargazers="(/fragments/stars/[^"]+)"/#).map { String($0.1) }
  }

  @Test func theAvatarsOfABatchSentAreFetchedOnce() async throws {
    let double = ReadAheadTests.double()
    let app = try ReadAheadTests.app(double)
    let html = try await ReadAheadTests.get(app, "/fragments/results?q=\(Self.list)&after=0")
    let owners = Set(html.matches(of: #/src="/avatars/(\d+)\?s=80"/#).map { String($0.1) })
    expectTrue(!owners.isEmpty)
    expectTrue(try await Self.reach(owners.count) { double.counters().calls(.avatar) })
    for owner in owners {
      _ = try await app.handler(
        HTTPRequest(method: .get, target: "/avatars/\(owner)?s=80"), .init(requestID: "a"))
    }
    expectEqual(double.counters().calls(.avatar), owners.count, "the browser's requests found them cached")
  }

  @Test func askingForOneHistoryWarmsTheNextCards() async throws {
    let double = ReadAheadTests.double()
    let app = try ReadAheadTests.app(double)
    let paths = Self.historyPaths(
      try await ReadAheadTests.get(app, "/fragments/results?q=\(Self.list)&after=0"))
    expectEqual(paths.count, 20)
    _ = try await ReadAheadTests.get(app, paths[3])
    expectEqual(app.warming.count(.history), 4)
    expectTrue(try await Self.reach(5) { double.counters().calls(.history) })
    expectEqual(double.counters().calls(.history), 5, "its own and cards 5–8")
    _ = try await ReadAheadTests.get(app, paths[4])
    // How many follow card 5 depends on the pace between the two requests; cards 6–8 are cached.
    let warmed = app.warming.count(.history) - 4
    expectTrue((4...16).contains(warmed))
    expectTrue(try await Self.reach(5 + warmed - 3) { double.counters().calls(.history) })
    expectEqual(double.counters().calls(.history), 5 + warmed - 3, "card 5 itself came from the cache")
    let sent = app.warming.count(.history)
    _ = try await ReadAheadTests.get(app, paths[19])
    expectEqual(app.warming.count(.history), sent, "nothing is known after the last card sent")
  }

  @Test func aFullPageWarmsTheHistoriesOfItsFirstScreen() async throws {
    let double = ReadAheadTests.double()
    let app = try ReadAheadTests.app(double)
    let paths = Self.historyPaths(try await ReadAheadTests.get(app, "/?q=\(Self.list)"))
    expectEqual(paths.count, 20)
    expectTrue(try await Self.reach(Warming.firstScreen) { double.counters().calls(.history) })
    expectEqual(app.warming.count(.history), Warming.firstScreen)
    // Card 1's own history and the 4 warmed after it all fall in the first screen, already fetched.
    _ = try await ReadAheadTests.get(app, paths[0])
    expectEqual(app.warming.count(.history), Warming.firstScreen + 4)
    expectEqual(
      double.counters().calls(.history), Warming.firstScreen, "the browser's request found them cached")
    _ = try await ReadAheadTests.get(app, "/fragments/results?q=\(Self.list)&after=20")
    expectEqual(app.warming.count(.history), Warming.firstScreen + 4, "a fragment is not a first screen")
  }

  /// An app whose GitHub allows 10 core calls an hour, after a reader asked for the star histories of
  /// the first `read` cards of the first batch (spending the budget), and that batch's history paths.
  static func lowBudgetApp(afterReading read: Int) async throws -> (app: RepoScrollApp, paths: [String]) {
    let double = AppHarness.smallDouble { $0.coreLimitPerHour = 10 }
    let app = try ReadAheadTests.app(double)
    let paths = Self.historyPaths(
      try await ReadAheadTests.get(app, "/fragments/results?q=\(Self.list)&after=0"))
    for path in paths[0..<read] { _ = try await ReadAheadTests.get(app, path) }
    return (app, paths)
  }

  @Test func aFullPageWarmsNothingOnALowCoreBudget() async throws {
    // 10 an hour: once 5 are spent, 6 more would leave none of the half kept back.
    let (app, _) = try await Self.lowBudgetApp(afterReading: 5)
    let warmedEarly = app.warming.count(.history)
    let budgetEarly = app.warming.count(.budget)
    _ = try await ReadAheadTests.get(app, "/?q=\(Self.list)&page=3")
    expectTrue(try await Self.reach(budgetEarly + 1) { app.warming.count(.budget) })
    expectEqual(app.warming.count(.history), warmedEarly)
  }

  @Test func aLowCoreBudgetWarmsNothing() async throws {
    // 10 an hour: once 6 are spent, 4 more would leave none of the half kept back.
    let (app, paths) = try await Self.lowBudgetApp(afterReading: 4)
    let warmedEarly = app.warming.count(.history)
    _ = try await ReadAheadTests.get(app, paths[10])
    expectTrue(app.warming.count(.budget) >= 1)
    expectEqual(app.warming.count(.history), warmedEarly)
  }

  @Test(
    "plentiful: half the core window stays after warming",
    arguments: [(5000, 2504, 4, true), (5000, 2503, 4, false), (60, 34, 4, true), (60, 33, 4, false)])
  func plentiful(limit: Int, remaining: Int, spending: Int, allowed: Bool) {
    let snapshot = RateLimitSnapshot(resource: .core, limit: limit, remaining: remaining, reset: 2_000)
    expectEqual(Warming.plentiful(snapshot, spending: spending, now: 1_000), allowed)
  }

  @Test func theIndexFindsSuccessorsInTheSameListAndForgetsTheOldest() {
    var index = CardPositions(capacity: 3)
    let a = ListKind.search(SearchQuery(text: "a"))
    let b = ListKind.search(SearchQuery(text: "b"))
    index.record(RepoName(owner: "o", repo: "1"), list: a, position: 1)
    index.record(RepoName(owner: "o", repo: "2"), list: a, position: 2)
    index.record(RepoName(owner: "o", repo: "x"), list: b, position: 3)
    expectEqual(
      index.successors(of: RepoName(owner: "o", repo: "1"), count: 4), [RepoName(owner: "o", repo: "2")])
    expectTrue(index.successors(of: RepoName(owner: "o", repo: "2"), count: 4).isEmpty)
    index.record(RepoName(owner: "o", repo: "3"), list: a, position: 3)
    expectEqual(index.count, 3)
    expectTrue(
      index.successors(of: RepoName(owner: "o", repo: "1"), count: 4).isEmpty, "the oldest was forgotten")
    expectEqual(
      index.successors(of: RepoName(owner: "o", repo: "2"), count: 4), [RepoName(owner: "o", repo: "3")])
  }

  @Test func thePaceFollowsProgressDownTheListAndANewReaderStartsAfresh() {
    var index = CardPositions(capacity: 1000)
    let list = ListKind.search(SearchQuery(text: "a"))
    for position in 1...200 {
      index.record(RepoName(owner: "o", repo: "\(position)"), list: list, position: position)
    }
    func pace(_ position: Int, _ now: Double) -> Double {
      index.pace(at: RepoName(owner: "o", repo: "\(position)"), now: now)
    }
    expectEqual(pace(1, 0), 0, "nothing to measure yet")
    expectEqual(pace(11, 1), 10)
    expectEqual(pace(41, 2), 20, "the mean of 10 and 30 cards a second")
    expectEqual(pace(35, 2.5), 20, "a card above the furthest one (asked out of order) changes nothing")
    expectEqual(pace(45, 2.1), 20, "progress within half a second is not a pace yet")
    expectEqual(pace(51, 3), 15, "10 cards in the second since card 41, averaged with 20")
    expectTrue(pace(150, 4) > 20)
    expectEqual(pace(2, 10), 0, "a request far above is another reader")
    expectEqual(index.pace(at: RepoName(owner: "o", repo: "unknown"), now: 11), 0)
  }

  @Test(
    "a faster reader gets more histories warmed, within bounds",
    arguments: [(0.0, 4), (2.0, 4), (13.5, 7), (60.0, 8), (1e300, 8), (Double.infinity, 4), (Double.nan, 4)])
  func ahead(pace: Double, expected: Int) {
    expectEqual(Warming.ahead(pace: pace, minimum: 4), expected)
  }

  @Test func aConfiguredMinimumAboveTheCapWins() {
    expectEqual(Warming.ahead(pace: 100, minimum: 12), 12)
    expectEqual(Warming.ahead(pace: 1, minimum: 12), 12)
  }
}

@Suite("Recently warmed ids", .timeLimit(.minutes(6)))
struct RecentIDsTests {
  @Test func anIdIsClaimedOncePerLifetimeAndTheSetStaysBounded() {
    var recent = RecentIDs(capacity: 3, lifetime: 10)
    let claims = [
      recent.claim(1, now: 0), recent.claim(1, now: 5), recent.claim(1, now: 10), recent.claim(2, now: 10),
      recent.claim(3, now: 10),
      // Full of fresh claims: the set starts again rather than grow, so 1 is forgotten.
      recent.claim(4, now: 11), recent.claim(1, now: 11),
    ]
    expectEqual(claims, [true, false, true, true, true, true, true])
  }
}
