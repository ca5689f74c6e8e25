import App
import CurlClient
import GitHubDouble
import HTTP
import TestSupport
import Testing

/// Escaping, security headers, input limits and the token.
@Suite("Safety", .timeLimit(.minutes(6)))
struct SafetyTests {
  /// The double's hostile payloads (see CatalogVocabulary.xssPayloads), as they must never appear raw.
  static let payloads = [
    "<img src=x onerror=window.__xss=1>", "\"><script>window.__xss=1</script>",
    "'><svg onload=window.__xss=1>",
    "</textarea><script>window.__xss=1</script>", "<a href=\"javascript:window.__xss=1\">click</a>",
  ]

  @Test func hostileDescriptionsAndTopicsRenderAsText() async throws {
    try await AppHarness.with { h in
      for target in ["/?q=topic%3Axss", "/fragments/results?q=topic%3Axss&after=0"] {
        let html = try await h.text(target)
        expectEqual(HTMLScan.cards(html).count, 6)
        for payload in Self.payloads { expectTrue(!html.contains(payload), "raw payload in \(target)") }
        expectTrue(!html.contains("<script>window"))
        expectTrue(!html.contains("<img src=x") && !html.contains("<svg onload"), "a payload became a tag")
        expectTrue(html.contains("&lt;img src=x onerror=window.__xss=1&gt;"))
        expectTrue(!html.contains("javascript:window.__xss=1\""), "a javascript: URL reached an attribute")
      }
    }
  }

  @Test(arguments: [
    "\"><script>alert(1)</script>", "'><img src=x onerror=alert(1)>", "{{#x}}{{{y}}}{{/x}}</title><b>",
  ])
  func hostileQueriesRenderAsText(query: String) async throws {
    try await AppHarness.with { h in
      let encoded = HTMLScan.encode(query)
      for target in ["/?q=\(encoded)", "/fragments/results?q=\(encoded)&after=0", "/?q=\(encoded)&page=2"] {
        let response = try await h.get(target)
        let html = String(decoding: response.body, as: UTF8.self)
        expectTrue(!html.contains(query), "raw query in \(target)")
        expectTrue(!html.contains("<script>alert"))
        expectTrue(!html.contains("<img src=x"))
      }
    }
  }

  @Test func everyResponseCarriesTheSecurityHeaders() async throws {
    try await AppHarness.with { h in
      let page = try await h.text("/?q=language%3Apython")
      let css = try #require(page.firstMatch(of: #/href="(/static/app\.[0-9a-f]{8}\.css)"/#)).1
      let targets = [
        "/", "/?q=language%3Apython", "/fragments/results?q=language%3Apython&after=20", "/owners/octocat",
        "/fragments/stars/octocat/hello", "/avatars/1?s=40", "/healthz", "/metrics", String(css), "/nope",
        "/fragments/results?after=0", "/avatars/abc",
      ]
      for target in targets {
        let response = try await h.get(target)
        expectEqual(
          response.headers["Content-Security-Policy"],
          "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; object-src 'none'; "
            + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'", "\(target)")
        expectEqual(response.headers["X-Content-Type-Options"], "nosniff", "\(target)")
        expectEqual(response.headers["Referrer-Policy"], "same-origin", "\(target)")
      }
      let html = try await h.get("/?q=language%3Apython")
      expectEqual(html.headers["Cache-Control"], "no-cache")
      expectEqual(html.headers["Content-Type"], "text/html; charset=utf-8")
      let asset = try await h.get(String(css))
      expectEqual(asset.status.code, 200)
      expectEqual(asset.headers["Cache-Control"], "max-age=31536000, immutable")
      expectEqual(asset.headers["Content-Type"]?.hasPrefix("text/css"), true)
      expectTrue(!page.contains("<script>"), "no inline script")
      expectTrue(!page.contains("<style") && !page.contains(" style="), "no inline style")
    }
  }

  @Test func aQueryOver256CharactersGetsAClearMessage() async throws {
    try await AppHarness.with { h in
      let long = String(repeating: "a", count: 257)
      let page = try await h.get("/?q=\(long)")
      expectEqual(page.status.code, 400)
      let html = String(decoding: page.body, as: UTF8.self)
      expectTrue(html.contains("Queries are limited to 256 characters"))
      expectTrue(HTMLScan.cards(html).isEmpty)
      let fragment = try await h.get("/fragments/results?q=\(long)&after=0")
      expectEqual(fragment.status.code, 422)
      expectTrue(String(decoding: fragment.body, as: UTF8.self).contains("256 characters"))
      let exact = try await h.get("/?q=\(String(repeating: "a", count: 256))")
      expectEqual(exact.status.code, 200)
    }
  }

  @Test(arguments: ["sort=name", "order=sideways", "sort=%3Cscript%3E"])
  func badSortOrOrderIsRefused(parameter: String) async throws {
    try await AppHarness.with { h in
      let page = try await h.get("/?q=swift&\(parameter)")
      expectEqual(page.status.code, 400)
      expectTrue(!String(decoding: page.body, as: UTF8.self).contains("<script>"))
      let fragment = try await h.get("/fragments/results?q=swift&\(parameter)&after=0")
      expectEqual(fragment.status.code, 422)
    }
  }

  @Test(arguments: ["after=-1", "after=1001", "after=abc", "after=99999999999999999999999"])
  func badCursorsAreRefused(parameter: String) async throws {
    try await AppHarness.with { h in
      let response = try await h.get("/fragments/results?q=swift&\(parameter)")
      expectEqual(response.status.code, 400)
    }
  }
}
