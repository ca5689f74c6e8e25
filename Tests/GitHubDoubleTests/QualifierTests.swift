import GitHubDouble
import TestSupport
import Testing

@Suite("Date, size and field qualifiers", .timeLimit(.minutes(3)))
struct QualifierTests {
  let double = Fixtures.shared

  func total(_ q: String) async throws -> Int? {
    try await double.get("/search/repositories?q=\(enc(q))&per_page=1").json()["total_count"]?.int
  }

  /// Expected bounds as half-open Unix-second intervals, computed independently of the parser.
  @Test(
    "created: and pushed: take GitHub's range operators on dates and timestamps",
    arguments: [
      ("created:>2025-01-01", "created", 1_735_776_000, Int.max),
      ("created:>=2025-01-01", "created", 1_735_689_600, Int.max),
      ("created:<2020-06-15", "created", Int.min, 1_592_179_200),
      ("created:<=2020-06-15", "created", Int.min, 1_592_265_600),
      ("created:2024-03-01..2024-03-31", "created", 1_709_251_200, 1_711_929_600),
      ("created:2023-05-04", "created", 1_683_158_400, 1_683_244_800),
      ("created:<2022-01-01T02:00:00+02:00", "created", Int.min, 1_640_995_200),
      ("pushed:*..2019-12-31", "pushed", Int.min, 1_577_836_800),
      ("pushed:2026-01-01..*", "pushed", 1_767_225_600, Int.max),
      ("pushed:>2026-06-01T12:00:00Z", "pushed", 1_780_315_201, Int.max),
    ])
  func dates(q: String, field: String, from: Int, to: Int) async throws {
    let expected = double.catalog.publicRepositories.filter {
      let t = field == "created" ? $0.createdAt : $0.pushedAt
      return t >= from && t < to
    }.count
    expectTrue(expected > 0 && expected < double.catalog.publicRepositories.count)
    try await expectEqual(total(q + " fork:true"), expected)
  }

  @Test("a date range narrows a text search and sorts by stars within it")
  func combined() async throws {
    let j = try await double.get("/search/repositories?q=\(enc("created:>2025-01-01 stars:>500"))&sort=stars")
      .json()
    let items = j["items"]?.array ?? []
    expectTrue(!items.isEmpty)
    let stars = items.compactMap { $0["stargazers_count"]?.int }
    expectTrue(stars == stars.sorted(by: >) && stars.allSatisfy { $0 > 500 })
    expectTrue(items.allSatisfy { ($0["created_at"]?.string ?? "") >= "2025-01-02T00:00:00Z" })
  }

  @Test(
    "malformed dates and unknown qualifiers are plain text, as on GitHub",
    arguments: [
      "created:>2025-13-01", "created:2025-02-30", "pushed:yesterday", "created:>2025-1-1", "foo:bar",
    ])
  func plainText(q: String) async throws {
    try await expectEqual(total(q), 0)
    try await expectEqual(total("language:go " + q), 0)
  }

  @Test("size: filters on kilobytes")
  func size() async throws {
    let expected = double.catalog.publicRepositories.filter { $0.size >= 1000 && $0.size <= 5000 }.count
    expectTrue(expected > 0)
    try await expectEqual(total("size:1000..5000 fork:true"), expected)
  }

  @Test("in:readme searches descriptions (the double has no READMEs), in:description likewise")
  func inReadme() async throws {
    let readme = try #require(try await total("server in:readme"))
    let description = try await total("server in:description")
    let everywhere = try #require(try await total("server"))
    expectTrue(readme > 0 && readme == description && readme < everywhere)
  }
}
