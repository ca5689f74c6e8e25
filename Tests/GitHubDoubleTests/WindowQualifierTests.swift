import Clocks
import GitHubDouble
import HTTP
import TestSupport
import Testing

/// What a client that reads past the 1,000-result cap relies on: range qualifiers on every sort key
/// with every operator, `created:` slices to the second, the cap itself, and star counts that move.
@Suite("Windows past the cap: ranges, slices, the cap, moving stars", .timeLimit(.minutes(3)))
struct WindowQualifierTests {
  let double = Fixtures.shared

  func total(_ q: String, _ extra: String = "") async throws -> Int? {
    try await double.get("/search/repositories?q=\(enc(q))&per_page=1\(extra)").json()["total_count"]?.int
  }

  /// Every operator of GitHub's range syntax, as (text, first, last) over the integers.
  static let operators: [(String, Int, Int)] = [
    (">7", 8, Int.max), (">=7", 7, Int.max), ("<7", Int.min, 6), ("<=7", Int.min, 7), ("3..9", 3, 9),
    ("*..9", Int.min, 9), ("3..*", 3, Int.max), ("7", 7, 7), ("0", 0, 0),
  ]

  @Test(
    "stars:, forks: and help-wanted-issues: take every range operator",
    arguments: ["stars", "forks", "help-wanted-issues"])
  func ranges(key: String) async throws {
    let repositories = double.catalog.publicRepositories
    for (text, first, last) in Self.operators {
      let expected = repositories.filter {
        let value = key == "stars" ? $0.stars : key == "forks" ? $0.forks : $0.helpWantedIssues
        return value >= first && value <= last
      }.count
      try await expectEqual(total("\(key):\(text) fork:true"), expected, "\(key):\(text)")
    }
  }

  @Test("a key bound and a created: slice to the second select exactly that tie bucket slice")
  func bucketSlice() async throws {
    let bucket = double.catalog.publicRepositories.filter { $0.stars == 0 && !$0.fork }
    expectTrue(bucket.count > 1000, "the demo-size catalog has a stars:0 bucket larger than a window")
    let times = bucket.map(\.createdAt).sorted()
    let (low, high) = (times[times.count / 2], times[times.count / 2 + 40])
    let q =
      "stars:0 created:\(CivilDate.isoTimestamp(unixSeconds: low))..\(CivilDate.isoTimestamp(unixSeconds: high))"
    try await expectEqual(total(q), times.filter { $0 >= low && $0 <= high }.count)
    let open = "stars:0 created:\(CivilDate.isoTimestamp(unixSeconds: high))..*"
    try await expectEqual(total(open), times.filter { $0 >= high }.count)
    let items =
      try await double.get("/search/repositories?q=\(enc(q))&per_page=100&sort=stars").json()["items"]?
      .array ?? []
    expectEqual(items.count, times.filter { $0 >= low && $0 <= high }.count)
    expectTrue(items.allSatisfy { $0["stargazers_count"]?.int == 0 })
  }

  @Test("the cap: page 10 of 100 is served, page 11 is the 422 api.github.com sends; the total goes beyond")
  func cap() async throws {
    let q = enc("stars:>=0")
    let tenth = try await double.get("/search/repositories?q=\(q)&per_page=100&page=10&sort=stars")
    expectEqual(tenth.status.code, 200)
    let body = try tenth.json()
    expectEqual((body["items"]?.array ?? []).count, 100)
    expectTrue((body["total_count"]?.int ?? 0) > 10_000, "total_count is the true total, beyond the cap")
    let past = try await double.get("/search/repositories?q=\(q)&per_page=100&page=11&sort=stars")
    expectEqual(past.status.code, 422)
    let refused = try past.json()
    // As measured on api.github.com (search/issues and search/repositories answer alike): no `errors`.
    expectEqual(refused["message"]?.string, "Only the first 1000 search results are available")
    expectEqual(refused["documentation_url"]?.string, "https://docs.github.com/v3/search/")
    expectEqual(refused["status"]?.string, "422")
    expectEqual(refused["errors"], nil)
  }

  @Test("the full enumeration has every match in the sort's order, beyond the cap")
  func enumeration() async throws {
    let ids = double.enumerate(q: "stars:>=0", sort: .stars, ascending: false)
    expectEqual(ids.count, (try await total("stars:>=0")))
    expectEqual(Set(ids).count, ids.count)
    let stars = Dictionary(uniqueKeysWithValues: double.catalog.publicRepositories.map { ($0.id, $0.stars) })
    let keys = ids.map { stars[$0] ?? -1 }
    expectEqual(keys, keys.sorted(by: >))
  }

  @Test("star drift moves counts between calls: filters, order and items follow, and reset stops it")
  func drift() async throws {
    let double = Fixtures.small { $0.faults.starDrift = 40 }
    let path = "/search/repositories?q=\(enc("stars:>=0 fork:true"))&per_page=100&sort=stars&order=asc"
    let first = try await double.get(path).json()
    expectTrue(double.driftedRepositoryIDs().count > 20, "one call moved about 40 repositories")
    _ = try await double.get(path)
    let moved = double.driftedRepositoryIDs()
    // The catalog's own counts stay; the moved ones are what search sees now.
    let now = double.enumerate(q: "stars:>=0 fork:true", sort: .stars, ascending: true)
    expectEqual(now.count, double.catalog.publicRepositories.count)
    let items = first["items"]?.array ?? []
    let stars = items.compactMap { $0["stargazers_count"]?.int }
    expectEqual(stars, stars.sorted(), "an answer is ordered by the counts it reports")
    let catalog = Dictionary(
      uniqueKeysWithValues: double.catalog.publicRepositories.map { ($0.id, $0.stars) })
    let differing = items.filter { item in
      guard let id = item["id"]?.int, let s = item["stargazers_count"]?.int else { return false }
      return catalog[id] != s
    }
    expectTrue(differing.allSatisfy { moved.contains($0["id"]?.int ?? -1) })
    double.reset()
    expectTrue(double.driftedRepositoryIDs().isEmpty)
  }

  @Test("the catalog's size is a setting: a larger catalog has proportionally more matches")
  func size() async throws {
    var configuration = DoubleConfiguration.exact
    configuration.repositoryCount = 60_000
    configuration.ownerCount = 6_000
    let large = GitHubDouble(configuration: configuration, time: .system)
    expectEqual(large.catalog.publicRepositories.count, 60_000)
    let all = try await large.get("/search/repositories?q=\(enc("stars:>=0"))&per_page=1").json()
    expectTrue((all["total_count"]?.int ?? 0) > 50_000)
  }
}
