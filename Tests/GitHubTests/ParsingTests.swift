import HTTP
import TestSupport
import Testing

@testable import GitHub

@Suite("Pure parsers", .timeLimit(.minutes(3)))
struct ParsingTests {
  @Test(arguments: [
    (
      "<https://a/?page=2>; rel=\"next\", <https://a/?page=9>; rel=\"last\"",
      ["next": "https://a/?page=2", "last": "https://a/?page=9"]
    ),
    (
      "<https://a/?page=9>; rel=\"last\", <https://a/?page=2>; rel=\"next\"",
      ["next": "https://a/?page=2", "last": "https://a/?page=9"]
    ),
    ("<https://a/?x=1,2>; title=\"a, b; c\"; REL=Next", ["next": "https://a/?x=1,2"]),
    ("<u1>; rel=\"prev first\"", ["prev": "u1", "first": "u1"]),
    ("<u1>; rel=next, <u2>; rel=next", ["next": "u1"]),
    ("garbage, <u3>; rel=\"last\"", ["last": "u3"]),
    ("<u4>", [:]),
    ("<unterminated; rel=next", [:]),
    ("", [:]),
    (";;;,,,<<>>\"\"\\", [:]),
    ("<u5>; rel=\"esc\\\"aped\"", ["esc\"aped": "u5"]),
  ])
  func linkHeader(_ value: String, _ expected: [String: String]) {
    expectEqual(LinkHeader.parse(value), expected)
  }

  /// Random headers built from the grammar's own pieces: whatever they hold, every link found is
  /// written `<url>` in the input and every relation is a lower-cased token.
  @Test func linkHeaderSurvivesArbitraryBytes() throws {
    var generator = SeededGenerator(state: 0x11_4EAD)
    let pieces = [
      "<", ">", ";", ",", "=", "\"", " ", "\t", "\\", "rel", "REL", "next", "last", "u1", "é", "?a=1",
      "<https://a/?page=2>", "; rel=\"next\"", ", ",
    ]
    var found = 0
    for _ in 0..<2_000 {
      let length = Int.random(in: 0..<24, using: &generator)
      let value = (0..<length).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &generator)] }
        .joined()
      let links = LinkHeader.parse(value)
      found += links.count
      for (relation, url) in links {
        expectTrue(value.contains("<" + url + ">"), "\(url) is not a link in \(value)")
        expectTrue(!relation.isEmpty && relation == relation.lowercased(), "relation \(relation) in \(value)")
        expectTrue(!relation.contains(" ") && !relation.contains("\t"), "relation \(relation) in \(value)")
      }
    }
    expectTrue(found > 20, "the generator reaches well-formed links")
  }

  @Test(arguments: [
    (0, "1970-01-01"), (1_754_784_000, "2025-08-10"), (951_782_400, "2000-02-29"), (-86_400, "1969-12-31"),
    (4_107_542_400, "2100-03-01"),
  ])
  func isoDates(_ seconds: Int, _ expected: String) {
    expectEqual(CivilDate.isoDate(unixSeconds: seconds), expected)
  }

  /// Timestamps are written as bytes for years of four digits and joined from parts otherwise.
  @Test(arguments: [
    (0, "1970-01-01T00:00:00Z"), (1_759_231_024, "2025-09-30T11:17:04Z"),
    (951_868_799, "2000-02-29T23:59:59Z"),
    (-1, "1969-12-31T23:59:59Z"), (253_402_300_799, "9999-12-31T23:59:59Z"),
    (253_402_300_800, "10000-01-01T00:00:00Z"),
  ])
  func isoTimestamps(_ seconds: Int, _ expected: String) {
    expectEqual(CivilDate.isoTimestamp(unixSeconds: seconds), expected)
    if seconds < 253_402_300_800 {
      expectEqual(CivilDate.unixSeconds(isoTimestamp: expected[...]), seconds)
    }
  }

  /// Every Int is written without trapping, `Int.min` and `Int.max` included (a window's bounds are
  /// written into links), ending with the second of the day.
  @Test func isoTimestampsAtIntsEnds() {
    let earliest = CivilDate.isoTimestamp(unixSeconds: Int.min)
    let latest = CivilDate.isoTimestamp(unixSeconds: Int.max)
    expectTrue(earliest.hasPrefix("-") && earliest.hasSuffix("Z"), "\(earliest)")
    expectTrue(latest.hasSuffix("T15:30:07Z"), "\(latest)")
  }

  @Test func historyDecoding() throws {
    let outOfOrder =
      "[{\"week\":100,\"total\":1,\"days\":[1,0,0,0,0,0,0]},{\"week\":700000,\"total\":2,\"days\":[0,0,0,0,0,0,2],\"x\":true}]"
    let history = try ResponseDecoding.starHistory(Array(outOfOrder.utf8))
    expectEqual(history.weeks.map(\.weekStart), [700_000, 100])
    let short = try ResponseDecoding.starHistory(
      Array("[{\"week\":5,\"total\":1,\"days\":[1,0,0,0,0,0]}]".utf8))
    expectTrue(short.weeks.isEmpty)
    expectEqual(short.skipped, Skipped(count: 1, first: "week 0 has 6 days, expected 7"))
    expectTrue(try ResponseDecoding.starHistory(Array("[]".utf8)).weeks.isEmpty)
  }
}

@Suite("Nullable and odd fields", .timeLimit(.minutes(3)))
struct NullableFieldTests {
  @Test func nullOwnerAndUnusualLicenseDecode() async throws {
    let item = """
      {"id":5,"name":"n","full_name":"ghost/n","owner":null,"html_url":"https://github.com/ghost/n","private":false,
      "description":null,"language":null,"stargazers_count":1,"forks_count":0,"open_issues_count":0,
      "created_at":"2020-01-01T00:00:00Z","updated_at":"2020-01-02T00:00:00Z","homepage":"",
      "license":{"key":"other","name":"Other","spdx_id":"NOASSERTION","url":null}}
      """
    let body = "{\"total_count\":1,\"incomplete_results\":true,\"items\":[\(item)]}"
    let transport = FakeTransport { _ in
      Fixtures.response(body, headers: [("Link", "<https://x/?page=1>; rel=\"prev\"")])
    }
    let client = GitHubClient(
      configuration: GitHubConfiguration(), transport: transport,
      time: ManualClock(epochSeconds: 1_700_000_000).time)
    let page = try await client.searchRepositories(SearchQuery(text: "ghost"), page: 2, perPage: 1)
    let repo = try #require(page.items.first)
    expectTrue(page.incompleteResults)
    expectEqual(page.links, ["prev": "https://x/?page=1"])
    expectEqual(repo.owner, nil)
    expectEqual(repo.license, "Other")
    expectEqual(repo.homepage, nil)
    expectEqual(repo.topics, [])
    expectEqual(repo.pushedAt, nil)
    expectEqual(repo.fork, false)
    expectEqual(repo.archived, false)
  }

  @Test func nonHTTPBasesAreRefused() async {
    var configuration = GitHubConfiguration()
    configuration.apiBase = "file:///etc"
    configuration.avatarBase = "ftp://x"
    let transport = FakeTransport { _ in Fixtures.search(ids: [1]) }
    let client = GitHubClient(
      configuration: configuration, transport: transport, time: ManualClock(epochSeconds: 1_700_000_000).time)
    await #expect(throws: GitHubError.invalidInput("API base is not an http(s) URL")) {
      _ = try await client.searchRepositories(SearchQuery(text: "x"), page: 1)
    }
    await #expect(throws: GitHubError.invalidInput("avatar base is not an http(s) URL")) {
      _ = try await client.avatar(userID: 1, size: 1)
    }
    expectEqual(transport.callCount, 0)
  }
}
