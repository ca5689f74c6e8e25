import App
import GitHubDouble
import HTTP
import TestSupport
import Testing

/// Full pages: landing, the no-JS path, streaming and reload.
@Suite("Pages", .serialized, .timeLimit(.minutes(6)))
struct PageTests {
  @Test func withoutAQueryTheLandingPageShowsExamples() async throws {
    try await AppHarness.with { h in
      let html = try await h.text("/")
      expectTrue(html.contains("class=\"landing\""))
      expectTrue(html.contains("href=\"/?q=language%3Aswift&amp;sort=stars&amp;order=desc\""))
      expectTrue(!html.contains("role=\"feed\""))
      expectTrue(html.contains("<form class=\"search\" action=\"/\" method=\"get\" role=\"search\">"))
    }
  }

  @Test func theNoJavaScriptPagesLinkPreviousAndNext() async throws {
    try await AppHarness.with { h in
      let second = try await h.text("/?q=language%3Apython&sort=stars&order=desc&page=2")
      expectEqual(HTMLScan.cards(second).map(\.position), Array(21...40))
      expectEqual(HTMLScan.prevHref(second), "/?q=language%3Apython&sort=stars&order=desc")
      let next = try #require(HTMLScan.nextHref(second))
      expectEqual(next, "/?q=language%3Apython&sort=stars&order=desc&page=3")
      let third = try await h.text(next)
      expectEqual(HTMLScan.cards(third).map(\.position), Array(41...60))
      expectEqual(HTMLScan.prevHref(third), "/?q=language%3Apython&sort=stars&order=desc&page=2")
      let back = try await h.text(try #require(HTMLScan.prevHref(third)))
      expectEqual(HTMLScan.cards(back).map(\.id), HTMLScan.cards(second).map(\.id))
      // The fragment for the same cursor holds the same rows as the page.
      let fragment = try await h.text("/fragments/results?q=language%3Apython&sort=stars&order=desc&after=20")
      expectEqual(HTMLScan.cards(fragment).map(\.id), HTMLScan.cards(second).map(\.id))
      // Pages of the owner list link the same way.
      let login = try #require(second.firstMatch(of: #/<a href="/owners/([A-Za-z0-9-]+)">More from/#)).1
      let owner = try await h.text("/owners/\(login)?page=2")
      expectEqual(HTMLScan.prevHref(owner), "/owners/\(login)")
    }
  }

  /// The streamed first page, plain and gzipped (the compressor is flushed at each chunk).
  @Test(arguments: [false, true])
  func theHeadAndFormAreFlushedBeforeGitHubAnswers(gzip: Bool) async throws {
    let double = AppHarness.smallDouble {
      $0.faults.latency = LatencySpec(perEndpoint: [.search: LatencyRange(fixed: 1500)])
    }
    try await AppHarness.with(double: double, live: true) { h in
      let port = h.port
      // Blocking socket calls run on their own thread, off the pool the server's tasks need.
      try await onThread {
        let socket = try RawSocketClient(port: port, timeout: .seconds(10))
        defer { socket.close() }
        let encoding = gzip ? "Accept-Encoding: gzip\r\n" : ""
        try socket.send("GET /?q=language%3Apython HTTP/1.1\r\nHost: test\r\n\(encoding)\r\n")
        var reader = try ChunkedReader(gzip: gzip)
        while !reader.text.contains("id=\"results\"") { try reader.take(socket.readSome()) }
        expectEqual(reader.head.contains("Content-Encoding: gzip"), gzip)
        expectTrue(reader.head.contains("Transfer-Encoding: chunked"))
        expectTrue(reader.text.contains("<form class=\"search\""))
        expectTrue(!reader.text.contains("<article"), "cards must not be in the first flush")
        expectEqual(double.counters().calls(.search), 0, "GitHub has not answered yet")
        while !reader.ended { try reader.take(socket.readSome()) }
        expectTrue(reader.text.contains("<article"))
        expectTrue(reader.text.contains("</html>"))
      }
    }
  }

  @Test func aBrowserReloadRefetchesPageOneUpstream() async throws {
    let double = AppHarness.smallDouble()
    try await AppHarness.with(double: double) { h in
      _ = try await h.text("/?q=language%3Apython")
      _ = try await h.text("/?q=language%3Apython")
      expectEqual(double.counters().calls(.search), 1, "a plain repeat is served from the cache")
      _ = try await h.text("/?q=language%3Apython", headers: ["Cache-Control": "max-age=0"])
      expectEqual(double.counters().calls(.search), 2)
      _ = try await h.text(
        "/?q=language%3Apython", headers: ["Cache-Control": "no-cache", "Pragma": "no-cache"])
      expectEqual(double.counters().calls(.search), 3)
      _ = try await h.text(
        "/fragments/results?q=language%3Apython&after=20", headers: ["Cache-Control": "max-age=0"])
      expectEqual(double.counters().calls(.search), 3, "fragments never bypass the cache")
    }
  }
}
