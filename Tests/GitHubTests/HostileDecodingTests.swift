import CurlClient
import HTTP
import Synchronization
import TestSupport
import Testing

@testable import GitHub

/// Search bodies with one item changed by `edit` (a JSON fragment spliced over a field).
private enum Hostile {
  static func item(id: Int, _ replacements: [String: String] = [:], description: String = "\"d\"") -> String {
    var fields: [(String, String)] = [
      ("id", "\(id)"), ("name", "\"repo\(id)\""), ("full_name", "\"owner/repo\(id)\""),
      ("html_url", "\"https://github.com/owner/repo\(id)\""),
      ("owner", #"{"login":"owner","id":7,"avatar_url":"https://avatars.githubusercontent.com/u/7?v=4"}"#),
      ("description", description), ("fork", "false"), ("language", "\"Swift\""), ("stargazers_count", "10"),
      ("forks_count", "1"), ("open_issues_count", "2"), ("created_at", "\"2020-01-01T00:00:00Z\""),
      ("updated_at", "\"2021-01-01T00:00:00Z\""), ("topics", "[\"a\"]"), ("private", "false"),
    ]
    for index in fields.indices {
      if let value = replacements[fields[index].0] { fields[index].1 = value }
    }
    return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
  }

  static func page(_ items: [String], total: String = "5000", incomplete: String = "false") -> [UInt8] {
    Array(
      "{\"total_count\":\(total),\"incomplete_results\":\(incomplete),\"items\":[\(items.joined(separator: ","))]}"
        .utf8)
  }

  static func decode(_ body: [UInt8]) throws(GitHubError) -> SearchPage {
    try ResponseDecoding.searchPage(body, headers: [:], page: 1, perPage: 100)
  }
}

@Suite("Hostile upstream: numbers, bad items, text", .timeLimit(.minutes(3)))
struct HostileDecodingTests {
  @Test(arguments: [
    ("9223372036854775807", UpstreamNumber.maxCount), ("-9223372036854775808", 0),
    ("1e17", UpstreamNumber.maxCount),
    ("1e300", UpstreamNumber.maxCount), ("-0", 0), ("12.9", 12), ("-3.5", 0), ("4E2", 400),
    ("999999999999", 999_999_999_999), ("-1e300", 0),
  ])
  func countsAreClamped(_ raw: String, _ expected: Int) throws {
    let page = try Hostile.decode(
      Hostile.page([
        Hostile.item(id: 1, ["stargazers_count": raw, "forks_count": raw, "open_issues_count": raw])
      ]))
    let item = try #require(page.items.first)
    expectEqual(
      [item.stargazersCount, item.forksCount, item.openIssuesCount], [expected, expected, expected])
    expectEqual(page.skippedItems, 0)
  }

  @Test(arguments: [
    "\"NaN\"", "\"12\"", "true", "null", "{}", "[]", "1e999", "\"Infinity\"",
  ])
  func aCountThatIsNotANumberSkipsOnlyItsItem(_ raw: String) throws {
    let page = try Hostile.decode(
      Hostile.page([Hostile.item(id: 1), Hostile.item(id: 2, ["stargazers_count": raw]), Hostile.item(id: 3)])
    )
    expectEqual(page.items.map(\.id), [1, 3])
    expectEqual(page.skippedItems, 1)
    expectEqual(page.skipped.first?.hasPrefix("item 1: "), true)
  }

  @Test(arguments: ["0", "-5", "1.5", "\"7\"", "1e17", "9223372036854775807", "null"])
  func anUnusableIDSkipsItsItem(_ raw: String) throws {
    let page = try Hostile.decode(Hostile.page([Hostile.item(id: 1, ["id": raw]), Hostile.item(id: 2)]))
    expectEqual(page.items.map(\.id), [2])
    expectEqual(page.skippedItems, 1)
  }

  @Test func missingRequiredFieldsAndWrongShapesSkipTheirItemsOnly() throws {
    let missingName = Hostile.item(id: 2).replacing("\"name\":\"repo2\",", with: "")
    let items = [
      Hostile.item(id: 1), missingName, "17", "null", "\"text\"",
      Hostile.item(id: 3, ["owner": "{\"login\":5}"]),
      Hostile.item(id: 4, ["topics": "[1,2]"]), Hostile.item(id: 5, ["fork": "\"yes\""]), Hostile.item(id: 6),
    ]
    let page = try Hostile.decode(Hostile.page(items))
    expectEqual(page.items.map(\.id), [1, 6])
    expectEqual(page.skippedItems, 7)
  }

  @Test func totalCountIsClampedAndAnUnusableEnvelopeFails() throws {
    try expectEqual(Hostile.decode(Hostile.page([], total: "1e300")).totalCount, UpstreamNumber.maxCount)
    try expectEqual(Hostile.decode(Hostile.page([], total: "-9223372036854775808")).totalCount, 0)
    try expectEqual(Hostile.decode(Hostile.page([], incomplete: "\"maybe\"")).incompleteResults, false)
    try expectEqual(Hostile.decode(Hostile.page([], incomplete: "true")).incompleteResults, true)
    for body in [
      "{\"total_count\":\"many\",\"items\":[]}", "{\"total_count\":3}", "{\"total_count\":3,\"items\":{}}",
      "[]",
      "<html>", "",
    ] {
      #expect(throws: GitHubError.self, "\(body)") { try Hostile.decode(Array(body.utf8)) }
    }
  }

  @Test func invalidUTF8AndLoneSurrogatesBecomeReplacementCharacters() throws {
    var body = Array("{\"total_count\":2,\"items\":[".utf8)
    let first = Hostile.item(id: 1, description: "\"a@b\"").split(separator: "@")
    body += Array(first[0].utf8)
    body += [0xFF, 0xC3, 0x28, 0xED, 0xA0, 0x80, 0xF0, 0x9F, 0x98]
    body += Array(first[1].utf8)
    body += Array(",".utf8)
    body += Array(Hostile.item(id: 2, description: #""x\ud800y\udc00z\ud83d\ude00\\ud800""#).utf8)
    body += Array("]}".utf8)
    let page = try Hostile.decode(body)
    expectEqual(page.items.map(\.id), [1, 2])
    expectEqual(page.items[0].description, "a\u{FFFD}\u{FFFD}(\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}b")
    expectEqual(page.items[1].description, "x\u{FFFD}y\u{FFFD}z\u{1F600}\\ud800")
  }

  @Test func validBodiesAreNotCopiedByTheRepair() {
    let body = Hostile.page([Hostile.item(id: 1, description: #""caf\u00e9 ✓ \ud83d\ude00""#)])
    expectEqual(JSONRepair.repaired(body), body)
  }

  @Test func controlCharactersAreStrippedFromEveryString() throws {
    var body = Array(#"{"total_count":1,"items":["#.utf8)
    let item = Hostile.item(
      id: 1, ["name": #""na\u0000me""#, "language": "\"Sw\u{7F}ift\u{85}\""],
      description: "\"tab\\tnew\\nline\\r\\u0007 bell\u{1}raw\u{9}tab\"")
    body += Array(item.utf8)
    body += Array("]}".utf8)
    let page = try Hostile.decode(body)
    let repo = try #require(page.items.first)
    expectEqual(repo.name, "name")
    expectEqual(repo.language, "Swift")
    expectEqual(repo.description, "tab\tnew\nline bellraw\ttab")
  }

  @Test func historyWeeksAreClampedAndBadWeeksSkipped() throws {
    let body = """
      [{"week":1754784000,"total":1e300,"days":[9223372036854775807,-1,1.5,0,0,0,0]},
       {"week":1754179200,"total":3,"days":[1,1,1,0,0,0]},
       {"week":"soon","total":3,"days":[1,1,1,0,0,0,0]},
       {"week":1e300,"total":-7,"days":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]},
       {"week":-9223372036854775808,"total":2,"days":[0,0,0,0,0,0,2]}]
      """
    let history = try ResponseDecoding.starHistory(Array(body.utf8))
    expectEqual(history.weeks.map(\.total), [UpstreamNumber.maxCount, 2])
    expectEqual(history.weeks[0].days, [UpstreamNumber.maxCount, 0, 1, 0, 0, 0, 0])
    expectEqual(history.weeks[1].weekStart, 0)
    expectEqual(history.skipped.count, 3)
  }

  @Test func skippedItemsAreCountedAndLoggedOncePerFetchedPage() async throws {
    let lines = Mutex<[String]>([])
    let body = Hostile.page([Hostile.item(id: 1), Hostile.item(id: 2, ["forks_count": "\"x\""]), "7"])
    let transport = FakeTransport { _ in ClientResponse(status: .ok, headers: [:], body: body) }
    var configuration = GitHubConfiguration()
    configuration.apiBase = "http://127.0.0.1:9"
    configuration.eventLog = { line in lines.withLock { $0.append(line) } }
    let client = GitHubClient(
      configuration: configuration, transport: transport, time: ManualClock(epochSeconds: 1_700_000_000).time)
    let page = try await client.searchRepositories(SearchQuery(text: "x"), page: 1)
    _ = try await client.searchRepositories(SearchQuery(text: "x"), page: 1)
    expectEqual(page.items.map(\.id), [1])
    expectEqual(page.skippedItems, 2)
    await expectEqual(client.metrics().itemsSkipped, [.search: 2])
    let logged = lines.withLock { $0 }
    expectEqual(logged.count, 1, "one line for the page, none for the cache hit: \(logged)")
    expectEqual(
      logged.first?.hasPrefix("github: skipped 2 malformed value(s) from search /search/repositories?"), true,
      "\(logged)")
    expectEqual(logged.first?.contains("item 1: wrong type at "), true)
  }
}

@Suite("Redaction and repair edges", .timeLimit(.minutes(3)))
struct RedactionTests {
  let redactor = Redactor(secret: "ghp_AB12")

  @Test(arguments: [
    ("x ghp_AB12 y", "x [redacted] y"), (#"\u0067hp_AB12"#, "[redacted]"),
    (#"\u0067\u0068\u0070\u005F\u0041\u0042\u0031\u0032"#, "[redacted]"),
    ("%67%68%70%5f%41%42%31%32", "[redacted]"), (#"g%68\u0070_AB12ghp_AB12"#, "[redacted][redacted]"),
    ("ghp_AB1", "ghp_AB1"), ("ghp_ab12", "ghp_ab12"), (#"\u00"#, #"\u00"#), ("%6", "%6"), ("", ""),
  ])
  func escapedFormsAreRedacted(_ text: String, _ expected: String) {
    expectEqual(redactor.redact(text), expected)
    expectEqual(redactor.redact(Array(text.utf8)), Array(expected.utf8))
    var line = Array("kept ghp_AB12 ".utf8) + Array(text.utf8)
    redactor.redact(&line, from: 5)
    expectEqual(line, Array("kept [redacted] ".utf8) + Array(expected.utf8), "in place, after the start")
    var head = Array("ghp_AB12|".utf8)
    redactor.redact(&head, from: 9)
    expectEqual(head, Array("ghp_AB12|".utf8), "bytes before the start are left alone")
  }

  @Test func withoutATokenNothingChanges() {
    expectEqual(Redactor(secret: nil).redact("ghp_AB12"), "ghp_AB12")
    expectEqual(Redactor(secret: "").redact("%41"), "%41")
  }

  /// Bodies cut inside an escape or a UTF-8 sequence: the repair reads no byte past the end (a read
  /// past it would trap), and mends what it can.
  @Test func truncatedBodiesAreMendedWithoutReadingPastTheEnd() {
    let quote = UInt8(ascii: "\""), slash = UInt8(ascii: "\\")
    expectEqual(JSONRepair.repaired([quote, slash]), [quote, slash])
    expectEqual(JSONRepair.repaired([quote] + Array(#"\u12"#.utf8)), [quote] + Array(#"\u12"#.utf8))
    expectEqual(JSONRepair.repaired([quote] + Array(#"\ud800\"#.utf8)), [quote] + Array(#"\uFFFD\"#.utf8))
    expectEqual(JSONRepair.repaired([quote] + Array(#"\ud800\u"#.utf8)), [quote] + Array(#"\uFFFD\u"#.utf8))
    expectEqual(JSONRepair.repaired([quote, 0xC3]), [quote, 0xEF, 0xBF, 0xBD])
    expectEqual(JSONRepair.repaired([quote, 0xF0, 0x9F]), [quote, 0xEF, 0xBF, 0xBD])
  }
}

@Suite("Cleaning order", .timeLimit(.minutes(3)))
struct CleaningOrderTests {
  /// Control characters are removed before the token is looked for, so a token split by them is still
  /// redacted; a token corrupted by another character is no longer the token and stays as text.
  @Test func aTokenSplitByControlCharactersIsRedacted() throws {
    let text = UpstreamText(redactor: Redactor(secret: "ghp_AB12"))
    var body = Array(#"{"total_count":2,"items":["#.utf8)
    body += Array(Fixtures.repositoryJSON(id: 1, description: #""x ghp_A\u0000B\u001b1\u00852 y""#).utf8)
    body += Array(",".utf8)
    body += Array(Fixtures.repositoryJSON(id: 2, description: "\"ghp_AB\u{1}12 ghp_A\"").utf8)
    body += Array("]}".utf8)
    let page = try ResponseDecoding.searchPage(body, headers: [:], page: 1, perPage: 100, text: text)
    expectEqual(page.items.map(\.description), ["x [redacted] y", "[redacted] ghp_A"])
    let corrupted =
      Array(#"{"total_count":1,"items":["#.utf8)
      + Array(Fixtures.repositoryJSON(id: 3, description: "\"ghp_AB@12\"").utf8).map {
        $0 == 0x40 ? 0xFF : $0
      }
      + Array("]}".utf8)
    let kept = try ResponseDecoding.searchPage(corrupted, headers: [:], page: 1, perPage: 100, text: text)
    expectEqual(kept.items.first?.description, "ghp_AB\u{FFFD}12")
  }
}
