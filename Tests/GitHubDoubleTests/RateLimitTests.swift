import GitHubDouble
import HTTP
import TestSupport
import Testing

@Suite("Rate limits", .timeLimit(.minutes(3)))
struct RateLimitTests {
  @Test("search headers count down; exhaustion is GitHub's 403; the window resets")
  func exhaustionAndReset() async throws {
    let (d, clock) = Fixtures.clocked { $0.searchLimitPerMinute = 3 }
    for expected in [2, 1, 0] {
      let r = try await d.get("/search/repositories?q=go")
      expectEqual(r.status, .ok)
      expectEqual(r.headers["x-ratelimit-limit"], "3")
      expectEqual(r.headers["x-ratelimit-remaining"], String(expected))
      expectEqual(r.headers["x-ratelimit-used"], String(3 - expected))
      expectEqual(r.headers["x-ratelimit-resource"], "search")
      expectEqual(r.headers["x-ratelimit-reset"], "1800000060")
    }
    let limited = try await d.get("/search/repositories?q=go")
    expectEqual(limited.status, .forbidden)
    expectEqual(limited.headers["x-ratelimit-remaining"], "0")
    let body = try limited.json()
    expectEqual(body["message"]?.string?.hasPrefix("API rate limit exceeded for 127.0.0.1."), true)
    expectTrue(body["documentation_url"]?.string != nil)
    let authed = try await d.get("/search/repositories?q=go", headers: ["Authorization": "Bearer x"])
    try expectEqual(authed.json()["message"]?.string, "API rate limit exceeded for user ID 1.")
    // The core resource is separate.
    let repo = d.catalog.repositories[0]
    let core = try await d.get("/repos/\(d.catalog.owner(of: repo).login)/\(repo.name)/stargazers/count")
    expectEqual(core.status, .ok)
    expectEqual(core.headers["x-ratelimit-resource"], "core")
    clock.advance(60)
    let again = try await d.get("/search/repositories?q=go")
    expectEqual(again.status, .ok)
    expectEqual(again.headers["x-ratelimit-remaining"], "2")
    expectEqual(d.counters().calls(.search, status: 403), 2)
    expectEqual(d.counters().calls(.search, status: 200), 4)
  }

  @Test("a configured 429 status is used for exhaustion")
  func status429() async throws {
    let d = Fixtures.small {
      $0.coreLimitPerHour = 1
      $0.rateLimitStatus = 429
    }
    let repo = d.catalog.repositories[1]
    let path = "/repos/\(d.catalog.owner(of: repo).login)/\(repo.name)/stargazers/history"
    try await expectEqual(d.get(path).status, .ok)
    let r = try await d.get(path)
    expectEqual(r.status.code, 429)
    expectEqual(r.headers["x-ratelimit-remaining"], "0")
  }

  @Test("the control API exhausts and restores a resource; /rate_limit reports it without spending")
  func controlAPI() async throws {
    let (d, clock) = Fixtures.clocked()
    let set = try await d.post("/_double/ratelimit?resource=search&remaining=0&reset=1800000500")
    expectEqual(set.status, .ok)
    try await expectEqual(d.get("/search/repositories?q=go").status, .forbidden)
    let status = try await d.get("/rate_limit")
    let j = try status.json()
    expectEqual(j["resources"]?["search"]?["remaining"]?.int, 0)
    expectEqual(j["resources"]?["search"]?["reset"]?.int, 1_800_000_500)
    expectEqual(j["resources"]?["core"]?["limit"]?.int, 5000)
    expectEqual(j["rate"]?["remaining"]?.int, 5000)
    clock.advance(500)
    try await expectEqual(d.get("/search/repositories?q=go").status, .ok)
    _ = try await d.post("/_double/ratelimit?resource=search&remaining=0&reset=1900000000")
    _ = try await d.post("/_double/reset")
    try await expectEqual(d.get("/search/repositories?q=go").status, .ok)
    try await expectEqual(d.post("/_double/ratelimit?resource=nope").status, .badRequest)
    try await expectEqual(d.post("/_double/ratelimit?resource=core&remaining=x").status, .badRequest)
  }
}
