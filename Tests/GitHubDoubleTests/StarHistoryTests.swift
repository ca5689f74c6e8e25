import GitHubDouble
import HTTP
import TestSupport
import Testing

@Suite("Star history and count", .timeLimit(.minutes(3)))
struct StarHistoryTests {
  let double = Fixtures.shared

  func allWeeks(_ owner: String, _ name: String) async throws -> [SchemaJSON] {
    var weeks: [SchemaJSON] = []
    var page = 1
    while page <= 100 {
      let r = try await double.get("/repos/\(owner)/\(name)/stargazers/history?per_page=30&page=\(page)")
      expectEqual(r.status, .ok)
      let batch = try #require(try r.json().array)
      if batch.isEmpty { break }
      weeks += batch
      if r.headers["Link"]?.contains("rel=\"next\"") != true { break }
      page += 1
    }
    return weeks
  }

  @Test("weekly new stars add up to stargazers_count; newest first, Sunday-aligned, contiguous")
  func consistency() async throws {
    let repos = double.catalog.repositories
    let picks = [
      repos.max { $0.stars < $1.stars }, repos.first { $0.stars == 0 }, repos.first { $0.stars > 1000 },
      repos.first { $0.stars > 10 && $0.stars < 100 },
    ].compactMap { $0 }
    expectEqual(picks.count, 4)
    for repo in picks {
      let weeks = try await allWeeks(double.catalog.owner(of: repo).login, repo.name)
      expectTrue(!weeks.isEmpty)
      var sum = 0
      var previous: Int?
      for w in weeks {
        let days = try #require(w["days"]?.array?.compactMap { $0.int })
        let total = try #require(w["total"]?.int)
        let start = try #require(w["week"]?.int)
        expectEqual(days.count, 7)
        expectEqual(days.reduce(0, +), total)
        expectTrue(days.allSatisfy { $0 >= 0 })
        expectEqual((start / 86400 + 4) % 7, 0, "weeks start on Sunday")
        if let previous { expectEqual(previous - start, 7 * 86400) }
        previous = start
        sum += total
      }
      expectEqual(sum, repo.stars, "\(repo.name)")
      let created = repo.createdAt
      expectTrue(
        (weeks.last?["week"]?.int ?? 0) <= created && created < (weeks.last?["week"]?.int ?? 0) + 7 * 86400)
    }
  }

  @Test("cumulative mode: the newest week's total equals stargazers_count")
  func cumulativeMode() async throws {
    let d = Fixtures.small { $0.cumulativeHistoryTotals = true }
    let repo = try #require(d.catalog.repositories.first { $0.stars > 50 })
    let r = try await d.get("/repos/\(d.catalog.owner(of: repo).login)/\(repo.name)/stargazers/history")
    let weeks = try #require(try r.json().array)
    expectEqual(weeks.first?["total"]?.int, repo.stars)
  }

  @Test("history pages: per_page capped at 30, Link, page > 100 is 422, unknown repo 404")
  func pages() async throws {
    let repo = try #require(
      double.catalog.repositories.first { $0.createdAt < double.catalog.referenceTime - 86400 * 7 * 100 })
    let owner = double.catalog.owner(of: repo).login
    let r = try await double.get("/repos/\(owner.uppercased())/\(repo.name)/stargazers/history?per_page=100")
    expectEqual(r.status, .ok)
    try expectEqual(r.json().array?.count, 30)
    expectEqual(r.headers["Link"]?.contains("rel=\"next\""), true)
    expectEqual(r.headers["ETag"]?.hasPrefix("W/\""), true)
    let bad = try await double.get("/repos/\(owner)/\(repo.name)/stargazers/history?page=101")
    expectEqual(bad.status.code, 422)
    let missing = try await double.get("/repos/\(owner)/no-such-repo-here/stargazers/history")
    expectEqual(missing.status, .notFound)
  }

  @Test("ETag and If-None-Match: 304 does not spend the core limit")
  func conditional() async throws {
    let d = Fixtures.small()
    let repo = d.catalog.repositories[3]
    let path = "/repos/\(d.catalog.owner(of: repo).login)/\(repo.name)/stargazers"
    for endpoint in ["/history", "/count"] {
      let first = try await d.get(path + endpoint)
      let etag = try #require(first.headers["ETag"])
      let remaining = try #require(Int(first.headers["x-ratelimit-remaining"] ?? ""))
      let again = try await d.get(path + endpoint, headers: ["If-None-Match": etag])
      expectEqual(again.status, .notModified)
      expectTrue(again.bytes.isEmpty)
      expectEqual(Int(again.headers["x-ratelimit-remaining"] ?? ""), remaining)
      let other = try await d.get(path + endpoint, headers: ["If-None-Match": "\"nope\""])
      expectEqual(other.status, .ok)
      expectEqual(Int(other.headers["x-ratelimit-remaining"] ?? ""), remaining - 1)
    }
  }
}
