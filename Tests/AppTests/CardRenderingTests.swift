import Clocks
import CurlClient
import Foundation
import GitHub
import HTTP
import Mustache
import Paging
import TestSupport
import Testing

@testable import App

/// The card views render exactly the bytes recorded in `Tests/Golden/`, from the shared double's fixed catalog
/// at a fixed clock: any change to the view models or the engine that alters a byte shows here. The
/// files are rendered HTML kept as data (`.golden`): they are written by this test, never by hand.
/// `REPOSCROLL_WRITE_GOLDEN=1` rewrites the files (the test then fails once, so a rewrite is never silent).
@Suite("Card rendering", .timeLimit(.minutes(6)))
struct CardRenderingTests {
  static let now = 1_795_003_200

  @Test(arguments: ["topic:xss", "language:python", "stars:>=0"])
  func fragmentsMatchTheGoldenFiles(query: String) async throws {
    let port = try AppHarness.sharedPort()
    var configuration = GitHubConfiguration()
    configuration.apiBase = "http://127.0.0.1:\(port)"
    let transport = CurlHTTPClient()
    defer { transport.shutdown() }
    let client = GitHubClient(configuration: configuration, transport: transport, time: .system)
    let search = SearchQuery(text: query, sort: .stars)
    let source = GitHubSearchSource(client: client, query: search)
    let list = PagedList(source: source, batchSize: 20, classify: GitHubSearchSource.classify)
    let root = try ProcessRunner.packageRoot()
    let templates = try Routes.loadTemplates(directory: root + "/Templates")
    for cursor in [0, 20] {
      let batch = await list.batch(after: cursor)
      expectTrue(batch.total > 0, "\(query) after \(cursor)")
      var view = BatchView(
        batch: batch, kind: .search(search), batchSize: 20, prefetchMargin: 5,
        largestStars: batch.peak, now: Self.now)
      view.cursor = .offset(cursor)
      view.next = batch.nextCursor.map { .offset($0) }
      var rendered: [UInt8] = []
      try templates.render("partials/cards", view.mustacheValue, into: &rendered)
      let name = String(query.map { $0.isLetter || $0.isNumber ? $0 : "-" })
      let path = root + "/Tests/Golden/cards-\(name)-\(cursor).golden"
      if ProcessInfo.processInfo.environment["REPOSCROLL_WRITE_GOLDEN"] == "1" {
        try Data(rendered).write(to: URL(fileURLWithPath: path))
        Issue.record("wrote \(path); run again without REPOSCROLL_WRITE_GOLDEN")
        continue
      }
      let golden = try #require(FileManager.default.contents(atPath: path), "missing \(path)")
      let expected = Array(golden)
      // Report where the bytes part, not both whole fragments.
      let common = min(rendered.count, expected.count)
      let split = (0..<common).first { rendered[$0] != expected[$0] } ?? common
      let context = { (bytes: [UInt8]) in
        String(decoding: bytes[max(0, split - 80)..<min(bytes.count, split + 80)], as: UTF8.self)
      }
      expectEqual(
        rendered, expected,
        "\(query) after \(cursor) differs from \(path) at byte \(split): got …\(context(rendered))… expected …\(context(expected))…"
      )
    }
  }

  @Test(arguments: [
    ("partials/card", "owner.nickname", "'owner.nickname' is not a field of card"),
    ("partials/page-start", "pager.next", "'pager.next' is not a name of the page view"),
    ("partials/state-error", "retry.url", "'retry.url' is not a name of the page view"),
    ("message", "message.title", "'message.title' is not a name of the page view"),
    ("partials/stars", "trend.arrow", "'trend.arrow' is not a name of the stars view"),
  ])
  func aNameTheViewModelLacksStopsLoading(template: String, name: String, message: String) throws {
    let root = try ProcessRunner.packageRoot()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "templates-\(UInt64.random(in: 0...UInt64.max))")
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.copyItem(at: URL(fileURLWithPath: root + "/Templates"), to: folder)
    #expect(throws: Never.self) { try Routes.loadTemplates(directory: folder.path) }
    let file = folder.appendingPathComponent(template + ".mustache")
    let source = try String(contentsOf: file, encoding: .utf8)
    let lines = source.split(separator: "\n", omittingEmptySubsequences: false).count
    try (source + "<i>{{\(name)}}</i>\n").write(to: file, atomically: true, encoding: .utf8)
    #expect {
      try Routes.loadTemplates(directory: folder.path)
    } throws: { error in
      guard let error = error as? MustacheError else { return false }
      return error.kind == .unknownName && error.file.hasSuffix(template + ".mustache") && error.line == lines
        && error.column == 4 && error.message == message
    }
  }

  @Test(arguments: [
    (0, "0"), (999, "999"), (1000, "1k"), (1049, "1k"), (1050, "1.1k"), (67_400, "67.4k"),
    (999_949, "999k"), (12_345, "12.3k"), (999_950, "1M"), (1_250_000, "1.3M"), (-1500, "-1.5k"),
  ])
  func compactCounts(value: Int, text: String) {
    expectEqual(Formatting.compact(value), text)
  }

  @Test(arguments: [(0, "0 forks"), (1, "1 fork"), (2, "2 forks"), (1200, "1.2k forks"), (1000, "1k forks")])
  func countsTakeTheSingularOnlyForOne(value: Int, text: String) {
    expectEqual(Formatting.counted(value, "fork"), text)
  }

  @Test func languagesGetTheirOwnColourOrAStableFallback() {
    expectEqual(LanguageStyle.className("Swift"), "lang-swift")
    expectEqual(LanguageStyle.className("C++"), "lang-cpp")
    expectTrue(LanguageStyle.className("Rust") != LanguageStyle.className("Go"))
    let other = LanguageStyle.className("Brainfuck")
    expectTrue(other.hasPrefix("lang-other-"))
    expectEqual(other, LanguageStyle.className("Brainfuck"), "the same language, the same colour")
    let fallbacks = Set(
      ["Nim", "OCaml", "Fortran", "COBOL", "Julia", "Erlang", "R", "Perl"].map(LanguageStyle.className))
    expectTrue(fallbacks.count > 2, "unknown languages spread over the fallback colours")
    expectTrue(
      fallbacks.allSatisfy { (0..<LanguageStyle.fallbackCount).map { "lang-other-\($0)" }.contains($0) })
  }

  @Test(arguments: [
    (0, "just now"), (59, "just now"), (60, "1 minute ago"), (7200, "2 hours ago"), (86400, "1 day ago"),
    (86400 * 45, "1 month ago"), (86400 * 365 * 12, "12 years ago"), (-5, "just now"),
  ])
  func relativeTimes(secondsAgo: Int, text: String) {
    expectEqual(Formatting.relative(1_795_003_200 - secondsAgo, now: 1_795_003_200), text)
  }

  @Test(arguments: [
    (1_795_003_200, "2026-11-18T12:00:00Z"), (0, "1970-01-01T00:00:00Z"), (-1, "1969-12-31T23:59:59Z"),
    (951_782_400, "2000-02-29T00:00:00Z"),
  ])
  func isoTimesRoundTrip(unix: Int, text: String) {
    expectEqual(Formatting.iso(unix), text)
    expectEqual(Formatting.unixSeconds(iso: text), unix)
  }

  @Test(arguments: [
    ("octo-cat", "OC"), ("swift", "S"), ("a.b_c", "AB"), ("9lives", "9"), ("", "?"), ("--", "-"),
    ("émile-zola", "ÉZ"), ("x-", "X"),
  ])
  func ownerInitials(login: String, text: String) {
    expectEqual(CardText.initials(login), text)
  }

  @Test(arguments: [0, 7, -42, 1_000_000, Int.max, Int.min])
  func builderDecimals(value: Int) {
    let text = TextBuilder.make(capacity: TextBuilder.decimalCount(value)) { $0.decimal(value) }
    expectEqual(text, String(value))
  }
}
