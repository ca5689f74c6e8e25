import App
import CurlClient
import Foundation
import GitHubDouble
import HTTP
import TestSupport
import Testing

/// The card's second level: avatars through the proxy and server-rendered star histories.
@Suite("Card details", .serialized, .timeLimit(.minutes(6)))
struct DetailsTests {
  /// The first card's avatar path and stargazers URL on a search page.
  static func firstCard(_ h: AppHarness) async throws -> (avatar: String, stars: String) {
    let html = try await h.text("/?q=language%3Apython&sort=stars")
    let avatar = try #require(
      html.firstMatch(of: #/<img src="(/avatars/\d+)\?s=80" srcset="/avatars/\d+\?s=160 2x"/#))
    let stars = try #require(html.firstMatch(of: #/data-stargazers="(/fragments/stars/[^"/]+/[^"/]+)"/#))
    return (String(avatar.1), String(stars.1))
  }

  @Test func avatarsAreProxiedAsImagesWithLongCachingAndETags() async throws {
    let double = AppHarness.smallDouble()
    // Without warming, so the double's avatar calls are the ones this test makes.
    try await AppHarness.with(double: double, configure: { $0.warmAvatars = false }) { h in
      let (avatar, _) = try await Self.firstCard(h)
      let response = try await h.get(avatar + "?s=80")
      expectEqual(response.status.code, 200)
      expectEqual(response.headers["Content-Type"], "image/png")
      expectTrue(response.body.starts(with: [0x89, 0x50, 0x4E, 0x47]))
      expectEqual(response.headers["Cache-Control"], "max-age=604800")
      let etag = try #require(response.headers["ETag"])
      let revalidated = try await h.get(avatar + "?s=80", headers: ["If-None-Match": etag])
      expectEqual(revalidated.status.code, 304)
      expectTrue(revalidated.body.isEmpty)
      // Sizes are clamped, so huge or silly ones still give an image.
      for size in ["99999", "-5", "abc", "0"] {
        let clamped = try await h.get(avatar + "?s=\(size)")
        expectEqual(clamped.status.code, 200)
        expectEqual(clamped.headers["Content-Type"], "image/png")
      }
      expectTrue(double.counters().calls(.avatar) <= 5, "repeat sizes come from the cache")
    }
  }

  @Test(arguments: [
    "/avatars/abc", "/avatars/0", "/avatars/-1", "/avatars/1e3", "/avatars/12%2F..%2F..%2Fx",
    "/avatars/1234567890123456789", "/avatars/..%2F..%2Fetc%2Fpasswd", "/avatars/1@evil.example",
    "/avatars/1%3Fs%3D1%26host%3Devil",
  ])
  func malformedAvatarIDsAre404WithoutAnUpstreamCall(target: String) async throws {
    let double = AppHarness.smallDouble()
    try await AppHarness.with(double: double) { h in
      let response = try await h.get(target)
      expectTrue(response.status.code == 404 || response.status.code == 400, "\(target): \(response.status)")
      expectEqual(double.counters().total, 0)
    }
  }

  @Test func aFailingAvatarHostGivesAPlaceholderImage() async throws {
    let double = AppHarness.smallDouble()
    try await AppHarness.with(double: double) { h in
      let (avatar, _) = try await Self.firstCard(h)
      try await h.control(.post, "/_double/faults?rate5xx=1")
      let response = try await h.get(avatar + "?s=81")
      expectEqual(response.status.code, 200)
      expectEqual(response.headers["Content-Type"], "image/svg+xml")
      expectEqual(response.headers["Cache-Control"], "no-cache")
    }
  }

  @Test func theStarsFragmentRendersASparklineAndFigures() async throws {
    try await AppHarness.with(double: AppHarness.smallDouble()) { h in
      let (_, stars) = try await Self.firstCard(h)
      let response = try await h.get(stars)
      expectEqual(response.status.code, 200)
      expectEqual(response.headers["Content-Type"], "text/html; charset=utf-8")
      let html = String(decoding: response.body, as: UTF8.self)
      expectTrue(html.contains("data-state=\"loaded\""))
      let points = try #require(
        html.firstMatch(of: #/<polyline class="spark-line" pathLength="1" points="([0-9., ]+)"/>/#))
      // 30 weeks, between the two corners that close the filled area at the bottom.
      expectEqual(points.1.split(separator: " ").count, 32)
      expectTrue(points.1.hasPrefix("0,30 0,"))
      expectTrue(points.1.hasSuffix(" 120,30"))
      expectTrue(html.contains(" this week · "))
      expectTrue(html.contains(" in 30 weeks"))
      expectTrue(html.firstMatch(of: #/class="trend trend-(up|down|flat)"/#) != nil)
    }
  }

  @Test func severalHistoriesComeInOneBatchedAnswer() async throws {
    let double = AppHarness.smallDouble()
    // Without history warming (the page would warm its first screen), so every call below is counted.
    try await AppHarness.with(double: double, configure: { $0.warmHistories = 0 }) { h in
      let html = try await h.text("/?q=language%3Apython&sort=stars")
      let names = html.matches(of: #/data-stargazers="/fragments/stars/([^"/]+/[^"/]+)"/#).prefix(3).map {
        String($0.1)
      }
      expectEqual(names.count, 3)
      let query = (names + ["nobody-here/nothing"]).map { "r=" + $0 }.joined(separator: "&")
      let response = try await h.get("/fragments/stars?" + query)
      expectEqual(response.status.code, 200)
      expectEqual(response.headers["Content-Type"], "text/html; charset=utf-8")
      let body = String(decoding: response.body, as: UTF8.self)
      let answered = body.matches(of: #/<template data-for="([^"]+)">/#).map { String($0.1) }
      expectEqual(answered, names + ["nobody-here/nothing"], "one template per repository, in order")
      expectEqual(body.matches(of: #/data-state="loaded"/#).count, 3)
      expectTrue(body.contains("No star history"))
      expectEqual(double.counters().calls(.history), 4, "one upstream call per repository")
    }
  }

  @Test(arguments: [
    "", "r=", "r=octocat", "r=a/b/c", "r=../etc", "r=-bad-/x",
    (1...21).map { "r=o/r\($0)" }.joined(separator: "&"),
  ])
  func batchedHistoriesRejectBadNames(query: String) async throws {
    try await AppHarness.with(double: AppHarness.smallDouble()) { h in
      let response = try await h.get("/fragments/stars?" + query)
      expectEqual(response.status.code, 400, "\(query)")
    }
  }

  @Test func unavailableAndRateLimitedHistoriesSaySo() async throws {
    let double = AppHarness.smallDouble()
    // Without history warming, so no warmed call can land after the count below is taken.
    try await AppHarness.with(double: double, configure: { $0.warmHistories = 0 }) { h in
      let missing = try await h.text("/fragments/stars/nobody-here/nothing")
      expectTrue(missing.contains("data-state=\"unavailable\""))
      expectTrue(missing.contains("No star history"))
      let (_, stars) = try await Self.firstCard(h)
      let reset = Int(Date().timeIntervalSince1970) + 120
      try await h.control(.post, "/_double/ratelimit?resource=core&remaining=0&reset=\(reset)")
      let limited = try await h.text(stars)
      expectTrue(limited.contains("data-state=\"unavailable\""))
      expectTrue(limited.contains("History paused until <time datetime=\""))
      let retryIn = try #require(limited.firstMatch(of: #/data-retry-in="(\d+)"/#)).1
      expectTrue((1...121).contains(Int(retryIn) ?? 0))
      let calls = double.counters().calls(.history)
      _ = try await h.text(stars)
      expectEqual(
        double.counters().calls(.history), calls, "no upstream call while the core limit is exhausted")
    }
  }

  @Test(arguments: [
    "/fragments/stars/-bad/repo", "/fragments/stars/bad--name/repo", "/fragments/stars/ok/..",
    "/fragments/stars/ok/.", "/fragments/stars/%3Cscript%3E/repo", "/fragments/stars/ok/re%2Fpo",
    "/fragments/stars/\(String(repeating: "a", count: 40))/repo", "/fragments/stars/ok/a%20b",
  ])
  func invalidNamesAre404(target: String) async throws {
    let double = AppHarness.smallDouble()
    try await AppHarness.with(double: double) { h in
      let response = try await h.get(target)
      expectEqual(response.status.code, 404, "\(target): \(response.status)")
      expectEqual(double.counters().total, 0)
      let owner = try await h.get("/owners/-bad-")
      expectEqual(owner.status.code, 404)
      expectTrue(String(decoding: owner.body, as: UTF8.self).contains("Page not found"))
    }
  }
}
