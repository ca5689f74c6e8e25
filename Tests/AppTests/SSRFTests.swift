import App
import CurlClient
import GitHubDouble
import HTTP
import TestSupport
import Testing

/// The avatar route cannot be steered to another host, `{owner}/{repo}` paths follow GitHub's name
/// rules before anything goes upstream, and `/static/` cannot leave `Public/`.
@Suite("SSRF and traversal", .timeLimit(.minutes(6)))
struct SSRFTests {
  /// `EVIL` in a case is replaced by the port of a counting server on loopback.
  static let hostileAvatarIDs = [
    "..%2f..%2fetc%2fpasswd", "%2e%2e", "%2E%2E%2Fu%2F1", "..", ".", "1%2f..%2f..%2fsearch%2frepositories",
    "1@127.0.0.1:EVIL", "1%40127.0.0.1:EVIL", "1%3Fs%3D1%26x%3D", "1%23x", "1%00", "1%0d%0aHost:%20evil",
    "99999999999999999999", "1234567890123456789", "-1", "0", "0x1F", "1e3", "+1", "1.0", "%201", "1%20",
    "%EF%BC%91", "%D9%A1", "%E0%A5%A7", "%C2%B9", "%2531", "%252e%252e", "http:%2f%2f127.0.0.1:EVIL%2fu%2f1",
    "%2f%2f127.0.0.1:EVIL", "1;evil", "1,2", "%", "%zz",
  ]

  @Test(arguments: hostileAvatarIDs)
  func hostileAvatarIDsNeverGoUpstream(id: String) async throws {
    let evil = try CountingServer()
    try await RecordingUpstream.withApp { h, upstream in
      let target = "/avatars/" + id.replacing("EVIL", with: String(evil.port)) + "?s=80"
      let response = try await h.raw(target)
      expectTrue((400..<500).contains(response.status), "\(target) answered \(response.status)")
      expectTrue(!response.body.contains(CountingServer.marker))
      expectTrue(upstream.seen(pathPrefix: "/u/").isEmpty, "\(target) reached the avatar host")
      expectTrue(upstream.seen.isEmpty, "\(target) reached the upstream: \(upstream.seen.map(\.target))")
    }
    expectEqual(evil.count, 0)
    await evil.stop()
  }

  /// Odd but numeric ids still become one canonical URL on the configured host.
  @Test(arguments: [("0001", 1), ("123456789012345678", 123_456_789_012_345_678), ("42", 42)])
  func numericAvatarIDsBecomeOneCanonicalURL(id: String, expected: Int) async throws {
    try await RecordingUpstream.withApp { h, upstream in
      let response = try await h.raw("/avatars/\(id)?s=80")
      expectEqual(response.status, 200)
      expectEqual(response.headers["Content-Type"], "image/png")
      expectEqual(upstream.seen(pathPrefix: "/u/").map(\.target), ["/u/\(expected)?s=80"])
    }
  }

  /// (raw `s` value, the size the upstream must be asked for).
  static let sizes: [(String, Int)] = [
    ("-1", 16), ("0", 16), ("15", 16), ("16", 16), ("80", 80), ("%2B100", 100), ("460", 460), ("461", 460),
    ("9223372036854775807", 460), ("-9223372036854775808", 16), ("99999999999999999999", 80), ("abc", 80),
    ("1e3", 80), ("0x40", 80), ("100.5", 80), ("%2f..%2f", 80), ("80%26x%3D1", 80), ("80%23", 80), ("", 80),
    ("%EF%BC%98%EF%BC%90", 80), ("80%0d%0aHost:%20evil", 80), ("%2531%2530%2530", 80),
  ]

  @Test(arguments: sizes)
  func avatarSizesAreParsedAndClamped(size: String, expected: Int) async throws {
    try await RecordingUpstream.withApp { h, upstream in
      let response = try await h.raw("/avatars/77?s=\(size)")
      expectEqual(response.status, 200)
      expectEqual(response.headers["Content-Type"], "image/png")
      expectEqual(upstream.seen(pathPrefix: "/u/").map(\.target), ["/u/77?s=\(expected)"], "s=\(size)")
      expectEqual(upstream.seen.count, 1)
    }
  }

  /// Redirect answers from the avatar host, each pointing at another loopback port.
  @Test(arguments: [
    (301, "http://127.0.0.1:EVIL/u/1?s=80"), (302, "http://127.0.0.1:EVIL/u/1?s=80"),
    (303, "http://127.0.0.1:EVIL/u/1"), (307, "http://127.0.0.1:EVIL/u/1?s=80"),
    (308, "http://127.0.0.1:EVIL/u/1?s=80"), (302, "//127.0.0.1:EVIL/u/1"), (302, "/u/2?s=80"),
  ])
  func avatarRedirectsAreNotFollowed(status: Int, location: String) async throws {
    let evil = try CountingServer()
    let target = location.replacing("EVIL", with: String(evil.port))
    try await RecordingUpstream.withApp(live: true) { h, upstream in
      upstream.setOverride { request in
        guard request.path.hasPrefix("/u/") else { return nil }
        return HTTPResponse(
          status: HTTPStatus(code: status), headers: ["Location": target, "Content-Type": "image/png"],
          body: .bytes(Array("moved".utf8)))
      }
      let response = try await h.get("/avatars/5?s=80")
      expectEqual(response.status.code, 200)
      expectEqual(response.headers["X-Avatar"], "placeholder", "the placeholder, not another host's image")
      expectEqual(response.headers["Content-Type"], "image/svg+xml")
      expectTrue(!response.body.contains(CountingServer.marker))
      expectEqual(
        upstream.seen(pathPrefix: "/u/").map(\.target), ["/u/5?s=80"], "exactly one request, no follow")
    }
    expectEqual(evil.count, 0, "the redirect target was fetched")
    await evil.stop()
  }

  /// The avatar host answering with something that is not a raster image: never passed through.
  @Test(arguments: [
    ("image/svg+xml", "<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"window.__xss=1\"/>"),
    ("text/html", "<script>window.__xss=1</script>"), ("application/octet-stream", "EVIL-HOST-BYTES-7f3a"),
    ("image/png; charset=\"><script>", ""),
  ])
  func nonImageAvatarAnswersBecomeThePlaceholder(contentType: String, body: String) async throws {
    try await RecordingUpstream.withApp { h, upstream in
      upstream.setOverride { request in
        guard request.path.hasPrefix("/u/") else { return nil }
        return HTTPResponse(
          status: .ok, headers: ["Content-Type": contentType], body: .bytes(Array(body.utf8)))
      }
      let response = try await h.get("/avatars/6?s=80")
      expectEqual(response.headers["X-Avatar"], "placeholder")
      expectEqual(response.headers["Content-Type"], "image/svg+xml")
      let text = String(decoding: response.body, as: UTF8.self)
      expectTrue(!text.contains("__xss") && !text.contains("EVIL-HOST"))
    }
  }

  // MARK: Names

  /// Raw path segments that are not GitHub logins.
  static let badOwners = [
    "-abc", "abc-", "a--b", String(repeating: "a", count: 40), "a_b", "a.b", "%2e%2e", ".", "a%2fb", "a%20b",
    "%3Cscript%3E", "%C3%BC", "a%00", "a%0d%0aX-Injected:%201", "%252e%252e", "a%3Fb", "a%23b", "a%5cb",
    "a@b", "a:b", "a%2e", "%2d",
  ]

  /// Raw path segments that are not GitHub repository names.
  static let badRepos = [
    ".", "%2e", "%2e%2e", "a%2fb", "a%20b", String(repeating: "r", count: 101), "%3Cx%3E", "a%00", "%C3%BC",
    "a%3Fb", "a%23b", "a%5cb", "a:b", "a@b", "a%25b", "..%2f..%2frate_limit", "a%0d%0ab",
  ]

  @Test(arguments: badOwners)
  func invalidOwnersAre404WithoutAnUpstreamCall(owner: String) async throws {
    try await RecordingUpstream.withApp { h, upstream in
      for target in [
        "/owners/\(owner)", "/fragments/owners/\(owner)?after=20", "/fragments/stars/\(owner)/valid-repo",
      ] {
        let response = try await h.raw(target)
        expectTrue([400, 404].contains(response.status), "\(target) answered \(response.status)")
      }
      try await expectEqual(Self.upstreamTotal(h), 0)
      expectTrue(upstream.seen.allSatisfy { $0.target.hasPrefix("/_double/") })
    }
  }

  @Test(arguments: badRepos)
  func invalidRepositoriesAre404WithoutAnUpstreamCall(repo: String) async throws {
    try await RecordingUpstream.withApp { h, upstream in
      let target = "/fragments/stars/octocat/\(repo)"
      let response = try await h.raw(target)
      expectTrue([400, 404].contains(response.status), "\(target) answered \(response.status)")
      try await expectEqual(Self.upstreamTotal(h), 0)
      expectTrue(upstream.seen.allSatisfy { $0.target.hasPrefix("/_double/") })
    }
  }

  /// The rules' edges that are valid reach the API, so the tables above can fail.
  @Test func validEdgeNamesDoGoUpstream() async throws {
    try await RecordingUpstream.withApp { h, upstream in
      let login39 = "a" + String(repeating: "-b", count: 19)
      let repo100 = String(repeating: "r", count: 100)
      for (owner, repo) in [("a", ".github"), (login39, "a.b_c-d"), ("Octo-Cat9", repo100), ("x", "..a")] {
        let response = try await h.raw("/fragments/stars/\(owner)/\(repo)")
        expectEqual(response.status, 200, "\(owner)/\(repo)")
      }
      let history = upstream.seen(pathPrefix: "/repos/").map(\.target)
      expectEqual(history.count, 4)
      expectTrue(history.contains("/repos/\(login39)/a.b_c-d/stargazers/history?per_page=30"))
      try await expectEqual(Self.upstreamTotal(h), 4)
      let owner = try await h.raw("/fragments/owners/\(login39)")
      expectEqual(owner.status, 200)
      expectEqual(upstream.seen(pathPrefix: "/search/").count, 1)
    }
  }

  /// `total` from the double's `GET /_double/counters`.
  static func upstreamTotal(_ h: AppHarness) async throws -> Int {
    let json = String(decoding: try await h.control(.get, "/_double/counters").body, as: UTF8.self)
    let total = try #require(json.firstMatch(of: #/"total":(\d+)/#))
    return Int(total.1) ?? -1
  }

  // MARK: Static files

  static let staticEscapes = [
    "/static/../Package.swift", "/static/%2e%2e/Package.swift", "/static/%2E%2E%2FPackage.swift",
    "/static/..%2fPackage.swift", "/static/.%2e/Templates/page.mustache",
    "/static/%2e./Templates/page.mustache",
    "/static/..%5cPackage.swift", "/static/..\\Package.swift", "/static/%252e%252e/Package.swift",
    "/static/%c0%ae%c0%ae/Package.swift", "/static/....//Package.swift", "/static//etc/passwd",
    "/static/%2fetc%2fpasswd", "/static/../../../../../../etc/passwd", "/static/app.css/../../Package.swift",
    "/static/%00../Package.swift", "/static/../Templates/page.mustache",
    "/static/../Sources/App/Routes.swift",
    "/static/..;/Package.swift", "/static/./../Package.swift", "/static/~/../Package.swift",
    "/static/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/static/feed.js/..%2f..%2fPackage.swift", "/static/.",
    "/static/",
    "/static/..", "/static/%2e%2e", "/static/../Public/../Package.swift",
  ]

  @Test(arguments: staticEscapes)
  func staticPathsCannotLeavePublic(target: String) async throws {
    try await AppHarness.with { h in
      let response = try await h.get(target)
      expectTrue((400..<500).contains(response.status.code), "\(target) answered \(response.status)")
      let text = String(decoding: response.body, as: UTF8.self)
      for secret in ["swift-tools-version", "root:x:0:0", "{{", "import GitHub", "partials/"] {
        expectTrue(!text.contains(secret), "\(target) served a file outside Public/")
      }
    }
  }

  @Test func staticFilesInsidePublicAreServed() async throws {
    try await AppHarness.with { h in
      let page = try await h.text("/")
      let style = try #require(page.firstMatch(of: #/href="(/static/app\.[0-9a-f]{8}\.css)"/#)).1
      let css = try await h.get(String(style))
      expectEqual(css.status.code, 200)
      expectEqual(css.headers["Cache-Control"]?.contains("immutable"), true)
      // Modules sit in one fingerprinted folder, so that their relative imports are fingerprinted too.
      let script = try #require(page.firstMatch(of: #/src="(/static/m/[0-9a-f]{8}/)feed\.js"/#)).1
      for name in ["feed.js", "cards.js"] {
        let response = try await h.get(String(script) + name)
        expectEqual(response.status.code, 200)
        expectTrue(String(decoding: response.body, as: UTF8.self).contains(name))
        expectEqual(response.headers["Cache-Control"]?.contains("immutable"), true)
      }
      let other = try await h.get("/static/m/00000000/cards.js")
      expectEqual(other.status.code, 200)
      expectEqual(other.headers["Cache-Control"]?.contains("immutable"), false)
      try await expectEqual(h.get(String(script) + "app.css").status.code, 404)
    }
  }
}
