import App
import Clocks
import CurlClient
import GitHub
import GitHubDouble
import HTTP
import TestSupport
import Testing

/// The first page and the fragments after it give every upstream row exactly once, in order.
@Suite("List walks", .timeLimit(.minutes(6)))
struct ListWalkTests {
  /// Upstream ids in order for `query`, read straight from the double with a separate client.
  static func upstreamIDs(_ harness: AppHarness, _ query: SearchQuery, limit: Int = 1000) async throws
    -> [Int]
  {
    var configuration = GitHubConfiguration()
    configuration.apiBase = AppHarness.inProcessBase
    let client = GitHubClient(
      configuration: configuration, transport: InProcessTransport(handler: harness.double.handler),
      time: .system)
    var ids: [Int] = []
    var page = 1
    while ids.count < limit {
      let result = try await client.searchRepositories(query, page: page, perPage: 100)
      for item in result.items where !ids.contains(item.id) { ids.append(item.id) }
      if result.items.count < 100 || page * 100 >= min(result.totalCount, 1000) { break }
      page += 1
    }
    return ids
  }

  /// Reads the first page, then follows each fragment's next trigger to the end; returns the cards
  /// in order and the last fragment.
  static func walk(_ harness: AppHarness, page: String) async throws -> (
    ids: [Int], positions: [Int], last: String
  ) {
    var html = try await harness.text(page)
    var ids: [Int] = []
    var positions: [Int] = []
    var steps = 0
    while true {
      for card in HTMLScan.cards(html) {
        ids.append(card.id)
        positions.append(card.position)
      }
      guard let next = HTMLScan.nextFragment(html) else { return (ids, positions, html) }
      steps += 1
      try #require(steps <= 60, "the walk does not end")
      html = try await harness.text(next)
    }
  }

  @Test func theFirstPageHoldsTheFirstBatch() async throws {
    try await AppHarness.with { h in
      let html = try await h.text("/?q=language%3Apython&sort=stars&order=desc")
      let cards = HTMLScan.cards(html)
      expectEqual(cards.count, 20)
      expectEqual(cards.map(\.position), Array(1...20))
      let expected = try await Self.upstreamIDs(
        h, SearchQuery(text: "language:python", sort: .stars, order: .desc))
      expectEqual(cards.map(\.id), Array(expected.prefix(20)))
      // The true total: the list goes on past GitHub's first 1,000.
      let total = h.double.enumerate(q: "language:python", sort: .stars, ascending: false).count
      expectTrue(total > 1000)
      expectTrue(cards.allSatisfy { $0.setsize == total })
      expectTrue(
        html.contains(
          "data-batch=\"/fragments/results?q=language%3Apython&amp;sort=stars&amp;order=desc&amp;after=0\""))
      expectEqual(
        HTMLScan.nextFragment(html), "/fragments/results?q=language%3Apython&sort=stars&order=desc&after=20")
      expectEqual(HTMLScan.nextHref(html), "/?q=language%3Apython&sort=stars&order=desc&page=2")
      expectEqual(HTMLScan.prevHref(html), nil)
      expectTrue(html.contains("data-prefetch"))
      expectTrue(html.hasSuffix("</html>\n"))
    }
  }

  @Test func walkingANarrowQueryGivesEveryRowOnceInOrderUpToTheEnd() async throws {
    try await AppHarness.with(double: AppHarness.smallDouble()) { h in
      let query = SearchQuery(text: "language:python", sort: .stars, order: .desc)
      let expected = try await Self.upstreamIDs(h, query)
      expectTrue(expected.count > 100, "the query must span more than one upstream page")
      let walked = try await Self.walk(h, page: "/?q=language%3Apython&sort=stars&order=desc")
      expectEqual(walked.ids, expected)
      expectEqual(walked.positions, Array(1...expected.count))
      expectTrue(walked.last.contains("That’s all \(expected.count).") || walked.last.contains("That’s all "))
      expectTrue(walked.last.contains("class=\"state state-end\""))
      expectTrue(!walked.last.contains("GitHub returns at most 1,000 results"))
    }
  }

  @Test func walkingABroadQueryInGitHubsOwnOrderCostsTenSearchCallsForItsFirstThousand() async throws {
    let double = AppHarness.smallDouble()
    try await AppHarness.with(double: double, time: AppHarness.stoppedWall) { h in
      let query = SearchQuery(text: "stars:>=0")
      let expected = try await Self.upstreamIDs(h, query)
      expectEqual(expected.count, 1000)
      double.reset()
      var html = try await h.text("/?q=stars%3A%3E%3D0")
      var ids = HTMLScan.cards(html).map(\.id)
      while ids.count < 1000, let next = HTMLScan.nextFragment(html) {
        html = try await h.text(next)
        ids += HTMLScan.cards(html).map(\.id)
      }
      expectEqual(ids, expected)
      // Rows 1–1000 cost exactly ceil(1000 / 100) search calls, and the list goes on past them.
      try await expectEqual(h.countedCalls("search"), 10, "GET /_double/counters")
      expectEqual(HTMLScan.nextFragment(html)?.contains("&after=1000&stars=*..*"), true)
    }
  }

  @Test func aQueryThatCannotTakeAWindowEndsAtTheCapAndSaysWhy() async throws {
    try await AppHarness.with(double: AppHarness.smallDouble(), time: AppHarness.stoppedWall) { h in
      // 240 characters: with a window's qualifiers it would pass GitHub's 256.
      let text = "stars:>=0" + String(repeating: " fork:false", count: 21)
      let walked = try await Self.walk(h, page: "/?q=\(HTMLScan.encode(text))&sort=stars&order=desc")
      expectEqual(walked.ids.count, 1000)
      expectTrue(walked.last.contains("GitHub returns at most 1,000 results — refine your query"))
      expectTrue(walked.last.contains("data-end=\"cap\""))
      expectTrue(walked.last.contains("cannot combine"))
    }
  }

  @Test func theOwnerListUsesTheSameMachinery() async throws {
    try await AppHarness.with(double: AppHarness.smallDouble()) { h in
      let first = try await h.text("/?q=language%3Apython&sort=stars&order=desc")
      let login = try #require(first.firstMatch(of: #/<a href="/owners/([A-Za-z0-9-]+)">More from/#)).1
      let expected = try await Self.upstreamIDs(
        h, SearchQuery(text: "user:\(login)", sort: .stars, order: .desc))
      expectTrue(!expected.isEmpty)
      let walked = try await Self.walk(h, page: "/owners/\(login)")
      expectEqual(walked.ids, expected)
      let owner = try await h.text("/owners/\(login)")
      expectTrue(owner.contains("Repositories by \(login)"))
      expectTrue(owner.contains("href=\"https://github.com/\(login)\""))
    }
  }
}
