import App
import Clocks
import CurlClient
import Foundation
import FoundationEssentials
import HTTP
import HTTPServer
import TestSupport
import Testing

@testable import App

/// A GitHub answered by a closure, for in-process tests of what the app makes of odd answers.
struct ScriptedTransport: HTTPClientTransport {
  let answer: @Sendable (ClientRequest) async throws -> ClientResponse

  func execute(_ request: ClientRequest) async throws(ClientError) -> ClientResponse {
    do {
      return try await answer(request)
    } catch {
      throw Self.typed(error)
    }
  }

  /// A script's error as the transport's typed error; a cancelled sleep is a cancelled request.
  static func typed(_ error: any Error) -> ClientError {
    if let error = error as? ClientError { return error }
    if error is CancellationError { return .cancelled }
    return .other(String(describing: error))
  }

  static func json(_ body: String, headers: [(String, String)] = []) -> ClientResponse {
    ClientResponse(
      status: .ok, headers: HTTPHeaders([("Content-Type", "application/json")] + headers),
      body: Array(body.utf8))
  }

  /// An app over `answer`, with the repository's templates.
  static func app(
    token: String? = nil, _ answer: @escaping @Sendable (ClientRequest) async throws -> ClientResponse
  ) throws -> RepoScrollApp {
    var configuration = try AppHarness.baseConfiguration(api: AppHarness.inProcessBase)
    configuration.githubToken = token
    return try RepoScrollApp(
      configuration: configuration, transport: ScriptedTransport(answer: answer), time: .system, log: { _ in }
    )
  }

  static func get(_ app: RepoScrollApp, _ target: String) async throws -> (Int, [UInt8]) {
    let response = try await InProcessTests.get(app, target)
    return (response.status.code, response.body)
  }
}

@Suite("Hostile upstream: extreme numbers and text reach the page safely", .timeLimit(.minutes(6)))
struct HostileUpstreamTests {
  static func item(id: Int, stars: String, forks: String = "1", issues: String = "2", name: String? = nil)
    -> String
  {
    """
    {"id":\(id),"name":"\(name ?? "r\(id)")","full_name":"o/r\(id)","html_url":"https://github.com/o/r\(id)",
    "private":false,"owner":{"login":"o","id":3},"description":"d\\u0000e","stargazers_count":\(stars),"forks_count":\(forks),
    "open_issues_count":\(issues),"created_at":"2020-01-01T00:00:00Z","updated_at":"2021-01-01T00:00:00Z"}
    """
  }

  @Test func displayArithmeticSaturates() {
    expectEqual(Formatting.compact(Int.max), "9223372036B")
    expectEqual(Formatting.compact(Int.min), "-9223372036B")
    expectEqual(Formatting.compact(999_949), "999k")
    expectEqual(Formatting.compact(999_950), "1M")
    expectEqual(Formatting.compact(1_250_000_000), "1.3B")
    expectTrue(Formatting.gain(Int.max).hasPrefix("+9223372036"))
    expectEqual(Formatting.grouped(Int.min), "-9,223,372,036,854,775,808")
    expectEqual(CardText.barPercent(stars: Int.max, largest: Int.max), 100)
    expectEqual(CardText.barPercent(stars: Int.max / 2, largest: Int.max), 50)
    expectEqual(CardText.barPercent(stars: 1, largest: Int.max), 1)
    expectEqual(CardText.barPercent(stars: Int.max, largest: 10), 100)
    expectEqual(CardText.barPercent(stars: Int.min, largest: Int.min), 0)
    expectEqual(StarsView.saturatingSum([Int.max, 1, Int.max]), Int.max)
    expectTrue(StarsView.productExceeds(Int.max, 100, Int.max, 99))
    expectTrue(!StarsView.productExceeds(Int.max, 85, Int.max, 100))
    expectEqual(StarsView.scaled(Int.max, by: 270, over: Int.max), 270)
  }

  @Test func extremeCountsRenderCardsWithoutTrapping() async throws {
    let items = [
      Self.item(id: 1, stars: "9223372036854775807", forks: "-9223372036854775808", issues: "1e300"),
      Self.item(id: 2, stars: "1e17"), Self.item(id: 3, stars: "-0"), Self.item(id: 4, stars: "12.5"),
      Self.item(id: 5, stars: "\"NaN\""), Self.item(id: 6, stars: "3", name: "a\\ud800b"),
    ]
    let search =
      "{\"total_count\":1e300,\"incomplete_results\":false,\"items\":[\(items.joined(separator: ","))]}"
    let history = """
      [{"week":1754784000,"total":1e17,"days":[0,0,0,0,0,0,100000000000000000]},
       {"week":1754179200,"total":9223372036854775807,"days":[0,0,0,0,0,0,0]},
       {"week":1753574400,"total":-9223372036854775808,"days":[0,0,0,0,0,0,0]}]
      """
    let app = try ScriptedTransport.app { request in
      if request.url.contains("/stargazers/history") { return ScriptedTransport.json(history) }
      return ScriptedTransport.json(
        request.url.hasSuffix("&page=1") ? search : "{\"total_count\":0,\"items\":[]}")
    }
    let (status, body) = try await ScriptedTransport.get(app, "/fragments/results?q=x&after=0")
    expectEqual(status, 200)
    let html = try #require(String(validating: body, as: UTF8.self))
    expectEqual(html.components(separatedBy: "<article").count - 1, 5, "the NaN item is skipped")
    expectTrue(html.contains("1000B"))
    // The card titles the full name; the mended name shows in its stars link, percent-encoded.
    expectTrue(html.contains("o/r6") && html.contains("/o/a%EF%BF%BDb"))
    expectTrue(!html.contains("\u{0}"))
    let (starsStatus, stars) = try await ScriptedTransport.get(app, "/fragments/stars/o/r1")
    expectEqual(starsStatus, 200)
    let starsHTML = try #require(String(validating: stars, as: UTF8.self))
    expectTrue(starsHTML.contains("+1000B"), "this week's stars, clamped")
    let metrics = String(decoding: try await ScriptedTransport.get(app, "/metrics").1, as: UTF8.self)
    expectTrue(metrics.contains("reposcroll_upstream_items_skipped_total{endpoint=\"search\"} 1\n"))
  }

  @Test func aShortIncompletePageDoesNotEndTheListAndIsNotedOnce() async throws {
    let app = try ScriptedTransport.app { request in
      let page = Int(request.url.split(separator: "page=").last ?? "1") ?? 1
      // Page 1 is short (30 of 100) and incomplete; page 2 is full; page 3 is empty.
      let ids = page == 1 ? Array(1...30) : page == 2 ? Array(101...200) : []
      let items = ids.map { Self.item(id: $0, stars: "\($0)") }.joined(separator: ",")
      return ScriptedTransport.json(
        "{\"total_count\":1677,\"incomplete_results\":\(page == 1),\"items\":[\(items)]}")
    }
    let first = String(decoding: try await ScriptedTransport.get(app, "/?q=x").1, as: UTF8.self)
    // GitHub's count: the list goes on past its first 1,000 (by stars), so that is its size.
    expectTrue(first.contains("aria-setsize=\"1677\""))
    expectEqual(first.components(separatedBy: "data-incomplete").count - 1, 1)
    let (_, body) = try await ScriptedTransport.get(app, "/fragments/results?q=x&after=20")
    let html = String(decoding: body, as: UTF8.self)
    expectTrue(html.contains("rel=\"next\""), "the short page did not end the list")
    expectTrue(!html.contains("That’s all"))
    expectTrue(html.contains("aria-posinset=\"31\" aria-setsize=\"1677\""))
    expectEqual(html.components(separatedBy: "data-incomplete").count - 1, 1, "one note in the tail")
    let (_, end) = try await ScriptedTransport.get(app, "/fragments/results?q=x&after=120")
    let endHTML = String(decoding: end, as: UTF8.self)
    expectTrue(endHTML.contains("That’s all 130."))
    expectTrue(endHTML.contains("aria-setsize=\"130\""), "the true end gives the exact size")
  }
}

@Suite("Reset times shown to people", .timeLimit(.minutes(6)))
struct ResetTimeTests {
  @Test(arguments: [
    (1_795_490_100, "03:15 UTC"),  // the same UTC day
    (1_795_565_700, "Nov 25, 00:15 UTC"),  // tomorrow
    (1_798_761_600, "Jan 1, 2027, 00:00 UTC"),  // next year
  ])
  func resetTextHasTheDateWhenNotToday(_ unix: Int, _ text: String) {
    let now = 1_795_478_400  // 2026-11-24T00:00:00Z
    expectEqual(Formatting.resetText(unix, now: now), text)
  }

  @Test func aFarResetRendersABoundedTimeElement() async throws {
    let app = try ScriptedTransport.app { _ in
      ClientResponse(
        status: HTTPStatus(code: 403),
        headers: HTTPHeaders([
          ("Content-Type", "application/json"), ("x-ratelimit-remaining", "0"),
          ("x-ratelimit-reset", "99999999999"), ("x-ratelimit-resource", "search"),
        ]),
        body: Array("{\"message\":\"API rate limit exceeded\"}".utf8))
    }
    let html = String(
      decoding: try await ScriptedTransport.get(app, "/fragments/results?q=x&after=0").1, as: UTF8.self)
    let retryIn = try #require(html.firstMatch(of: /data-retry-in="(\d+)"/)).1
    // A minute from when the 403 arrived, less however long this busy machine took to render.
    expectTrue((30...60).contains(Int(retryIn) ?? 0), "a minute, not the absurd reset")
    expectTrue(html.contains(/<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ">[^<]*UTC<\/time>/))
  }
}
