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
      #expect(r.status == .ok)
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
    #expect(picks.count == 4)
    for repo in picks {
      let weeks = try await allWeeks(double.catalog.owner(of: repo).login, repo.name)
      #expect(!weeks.isEmpty)
      var sum = 0
      var previous: Int?
      for w in weeks {
        let days = try #require(w["days"]?.array?.compactMap { $0.int })
        let total = try #require(w["total"]?.int)
        let start = try #require(w["week"]?.int)
        #expect(days.count == 7)
        #expect(days.reduce(0, +) == total)
        #expect(days.allSatisfy { $0 >= 0 })
        #expect((start / 86400 + 4) % 7 == 0, "weeks start on Sunday")
        if let previous { #expect(previous - start == 7 * 86400) }
        previous = start
        sum += total
      }
      #expect(sum == repo.stars, "\(repo.name)")
      let created = repo.createdAt
      #expect(
        (weeks.last?["week"]?.int ?? 0) <= created && created < (weeks.last?["week"]?.int ?? 0) + 7 * 86400)
    }
  }

  @Test("cumulative mode: the newest week's total equals stargazers_count")
  func cumulativeMode() async throws {
    let d = Fixtures.small { $0.cumulativeHistoryTotals = true }
    let repo = try #require(d.catalog.repositories.first { $0.stars > 50 })
    let r = try await d.get("/repos/\(d.catalog.owner(of: repo).login)/\(repo.name)/stargazers/history")
    let weeks = try #require(try r.json().array)
    #expect(weeks.first?["total"]?.int == repo.stars)
  }

  @Test("history pages: per_page capped at 30, Link, page > 100 is 422, unknown repo 404")
  func pages() async throws {
    let repo = try #require(
      double.catalog.repositories.first { $0.createdAt < double.catalog.referenceTime - 86400 * 7 * 100 })
    let owner = double.catalog.owner(of: repo).login
    let r = try await double.get("/repos/\(owner.uppercased())/\(repo.name)/stargazers/history?per_page=100")
    #expect(r.status == .ok)
    #expect(try r.json().array?.count == 30)
    #expect(r.headers["Link"]?.contains("rel=\"next\"") == true)
    #expect(r.headers["ETag"]?.hasPrefix("W/\"") == true)
    let bad = try await double.get("/repos/\(owner)/\(repo.name)/stargazers/history?page=101")
    #expect(bad.status.code == 422)
    let missing = try await double.get("/repos/\(owner)/no-such-repo-here/stargazers/history")
    #expect(missing.status == .notFound)
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
      #expect(again.status == .notModified)
      #expect(again.bytes.isEmpty)
      #expect(Int(again.headers["x-ratelimit-remaining"] ?? "") == remaining)
      let other = try await d.get(path + endpoint, headers: ["If-None-Match": "\"nope\""])
      #expect(other.status == .ok)
      #expect(Int(other.headers["x-ratelimit-remaining"] ?? "") == remaining - 1)
    }
  }
}
