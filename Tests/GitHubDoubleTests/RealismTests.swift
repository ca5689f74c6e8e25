import Compression
import GitHubDouble
import HTTP
import TestSupport
import Testing

/// The default double answers the way api.github.com does, checked against the real recordings.
@Suite("Realistic defaults", .timeLimit(.minutes(3)))
struct RealismTests {
  let double = Fixtures.realistic

  @Test("search answers are gzipped when accepted, chunked, and carry a request id like GitHub's")
  func wireFraming() async throws {
    let target = "/search/repositories?q=go&per_page=100"
    let zipped = try await double.get(target, headers: ["Accept-Encoding": "deflate, gzip, br"])
    expectEqual(zipped.headers["Content-Encoding"], "gzip")
    expectEqual(zipped.headers["Content-Length"], nil)
    expectEqual(zipped.headers["X-Test-Streamed"], "1", "the body is streamed, so it goes out chunked")
    let plain = try await double.get(target)
    expectEqual(plain.headers["Content-Encoding"], nil)
    try expectEqual(gunzip(zipped.bytes, limit: 1 << 24), plain.bytes)
    let refused = try await double.get(target, headers: ["Accept-Encoding": "gzip;q=0, identity"])
    expectEqual(refused.headers["Content-Encoding"], nil)
    let id = try #require(plain.headers["X-GitHub-Request-Id"])
    expectTrue(id.wholeMatch(of: #/[0-9A-F]{1,8}(:[0-9A-F]{1,8}){3,4}/#) != nil, "\(id)")
    let avatar = try await double.get("/u/5?s=40", headers: ["Accept-Encoding": "gzip"])
    expectEqual(avatar.headers["Content-Encoding"], nil)
    expectEqual(avatar.headers["X-Test-Streamed"], nil, "avatars keep a Content-Length, like a CDN")
  }

  @Test("the search answer's header names include every one a real recording has (but Date/Server)")
  func headersMatchRecording() async throws {
    let recording = try SharedData.path("github-recordings/normalized/057-get-search-repositories.json")
    guard let text = fileText(atPath: recording) else {
      Issue.record("cannot read \(recording)")
      return
    }
    let real = try SchemaJSON.parse(text)
    let names = (real["response"]?["headers"]?.object ?? [:]).keys.map { $0.lowercased() }
    expectTrue(names.contains("x-github-request-id"))
    let ours = try await double.get("/search/repositories?q=go", headers: ["Accept-Encoding": "gzip"])
    let have = Set(ours.headers.map { $0.name.lowercased() })
    // The server adds these when it writes the head; 2014's `status` header and credentials are gone.
    let added: Set = ["date", "server", "status", "content-length", "access-control-allow-credentials"]
    let missing = names.filter { !have.contains($0) && !added.contains($0) }
    expectTrue(missing.isEmpty, "\(missing)")
  }

  @Test("about one item in ten has an older era's shape: no topics, license or archived")
  func legacyItems() async throws {
    let j = try await double.get("/search/repositories?q=stars:>=0&per_page=100").json()
    let items = try #require(j["items"]?.array)
    let legacy = items.filter { $0["topics"] == nil }
    expectTrue((3...25).contains(legacy.count), "\(legacy.count) of \(items.count)")
    for item in legacy {
      expectTrue(item["license"] == nil && item["archived"] == nil)
      expectTrue(item["stargazers_count"]?.int != nil)
    }
  }

  @Test("a few search pages are short with incomplete_results, and each stays so")
  func shortPages() async throws {
    var short: [String] = []
    for page in 1...10 {
      for q in ["stars:>=0", "go", "language:python", "fork:true", "stars:>100"] {
        let target = "/search/repositories?q=\(enc(q))&per_page=100&page=\(page)"
        let j = try await double.get(target).json()
        let count = j["items"]?.array?.count ?? 0
        let total = j["total_count"]?.int ?? 0
        if j["incomplete_results"] == .bool(true) {
          expectTrue(count < min(100, total - (page - 1) * 100))
          short.append(target)
        }
      }
    }
    expectTrue((1...6).contains(short.count), "\(short.count) short pages of 50")
    if let again = short.first {
      try await expectEqual(double.get(again).json()["incomplete_results"], .bool(true))
    }
  }
}

/// Avatars come from a CDN: fast while the API is slow, unless told otherwise.
@Suite("Avatar latency", .timeLimit(.minutes(3)))
struct AvatarLatencyTests {
  @Test func avatarsAreCDNFastWhenOnlyAPILatencyIsSet() {
    var spec = LatencySpec(all: LatencyRange(min: 80, max: 400))
    expectEqual(spec.range(for: .search), LatencyRange(min: 80, max: 400))
    expectEqual(spec.range(for: .avatar), LatencyRange(min: 2, max: 20))
    spec.perEndpoint[.avatar] = LatencyRange(fixed: 3000)
    expectEqual(spec.range(for: .avatar), LatencyRange(fixed: 3000))
    spec.perEndpoint[.avatar] = nil
    spec.avatarCDN = nil
    expectEqual(spec.range(for: .avatar), LatencyRange(min: 80, max: 400))
    expectEqual(LatencySpec().range(for: .avatar), nil, "no latency at all stays none")
  }
}
