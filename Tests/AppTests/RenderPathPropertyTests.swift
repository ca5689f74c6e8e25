import App
import CurlClient
import Foundation
import FoundationEssentials
import HTTP
import Synchronization
import TestSupport
import Testing

@testable import App

/// Random JSON in GitHub's shapes, with extreme numbers, hostile strings and wrong types mixed in.
struct HostileJSON {
  var random: SeededGenerator

  static let numbers = [
    "0", "-0", "1", "42", "12.5", "-3", "1e17", "1E300", "-1e300", "9223372036854775807",
    "-9223372036854775808", "9223372036854775808", "1e999", "0.0000001", "\"NaN\"", "\"12\"",
  ]
  static let strings = [
    #""plain""#, #""""#, #""<script>alert(1)</script>""#, #""a\u0000b""#, #""\ud800""#, #""\udc00x""#,
    #""\ud83d\ude00""#, #""tab\tnew\nline\r""#, #""\u0085\u007f\u001b[31m""#, #""{{#x}}{{/x}}""#,
    #""javascript:alert(1)""#, #""https://github.com/o/r""#, #""\\ud800""#, "\"raw\u{1}control\"",
    "\"caf\u{E9} \u{1F600}\"",
  ]
  static let wrongTypes = ["null", "7", "[\"x\"]", "{}", "true"]

  mutating func pick(_ options: [String]) -> String { options[Int(random.next() % UInt64(options.count))] }
  mutating func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }

  mutating func number() -> String {
    if chance(2) { return pick(Self.wrongTypes) }
    return chance(40)
      ? String(Int(random.next() % 100_000)) : pick(Self.numbers.filter { !$0.hasPrefix("\"") })
  }
  mutating func string() -> String {
    if chance(2) { return pick(Self.wrongTypes) }
    return chance(40) ? "\"s\(random.next() % 1000)\"" : pick(Self.strings)
  }

  mutating func item() -> String {
    if chance(5) { return pick(["null", "17", "\"item\"", "[]", "{}"]) }
    var fields: [(String, String)] = [
      ("id", chance(85) ? String(1 + random.next() % 60) : number()), ("name", string()),
      ("full_name", string()), ("html_url", string()), ("description", string()), ("language", string()),
      ("stargazers_count", number()), ("forks_count", number()), ("open_issues_count", number()),
      ("created_at", chance(80) ? #""2020-01-01T00:00:00Z""# : string()),
      ("updated_at", chance(80) ? #""2024-05-06T07:08:09Z""# : string()),
      ("pushed_at", chance(50) ? "null" : string()), ("homepage", string()),
      ("topics", chance(70) ? "[\(string()),\(string())]" : pick(["null", "[1]", "\"t\""])),
      ("license", chance(50) ? "null" : "{\"spdx_id\":\(string()),\"name\":\(string())}"),
      ("owner", chance(85) ? "{\"login\":\(string()),\"id\":\(number())}" : pick(["null", "3", "{}"])),
      ("fork", pick(["true", "false", "null", "\"no\""])), ("archived", pick(["true", "false", "1"])),
      // Mostly public; otherwise private, internal, unsaid or of the wrong type, none of which an
      // anonymous reader may ever see.
      ("private", chance(85) ? "false" : pick(["true", "null", "\"false\"", "0"])),
      ("visibility", chance(85) ? #""public""# : pick([#""private""#, #""internal""#, "null", "7"])),
    ]
    fields.removeAll { _ in chance(1) }
    return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
  }

  mutating func searchPage() -> String {
    let items = (0..<Int(random.next() % 40)).map { _ in item() }
    return "{\"total_count\":\(number()),\"incomplete_results\":\(pick(["true", "false", "null", "1"])),"
      + "\"items\":[\(items.joined(separator: ","))]}"
  }

  mutating func history() -> String {
    let weeks = (0..<Int(random.next() % 35)).map { _ in
      let days = (0..<(chance(90) ? 7 : Int(random.next() % 10))).map { _ in number() }
      return "{\"week\":\(number()),\"total\":\(number()),\"days\":[\(days.joined(separator: ","))]}"
    }
    return "[" + weeks.joined(separator: ",") + "]"
  }

  /// `text` with a few random bytes overwritten, inserted or removed (often breaking the JSON).
  mutating func mutated(_ text: String) -> [UInt8] {
    var bytes = Array(text.utf8)
    for _ in 0..<Int(random.next() % 4) where !bytes.isEmpty {
      let at = Int(random.next() % UInt64(bytes.count))
      switch random.next() % 3 {
      case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
      case 1: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: at)
      default: bytes.remove(at: at)
      }
    }
    return bytes
  }
}

/// Checks one rendered answer: 200, valid UTF-8, no control characters but tab and newline, and
/// every opened card closed. Returns the card count.
func checkRendered(_ status: Int, _ body: [UInt8], _ what: String) -> Int {
  expectEqual(status, 200, "\(what) answered \(status)")
  expectTrue(String(validating: body, as: UTF8.self) != nil, "\(what) is not valid UTF-8")
  expectTrue(
    !body.contains { ($0 < 0x20 && $0 != 0x09 && $0 != 0x0A) || $0 == 0x7F }, "control byte in \(what)")
  let html = String(decoding: body, as: UTF8.self)
  let opened = html.components(separatedBy: "<article ").count - 1
  expectEqual(opened, html.components(separatedBy: "</article>").count - 1, "unbalanced cards in \(what)")
  return opened
}

@Suite("Render path under random and extreme upstream JSON", .timeLimit(.minutes(6)))
struct RenderPathPropertyTests {
  /// The bodies the scripted GitHub answers with, set before each case.
  final class Bodies: Sendable {
    let current = Mutex<(search: [UInt8], history: [UInt8])>(([], []))
  }

  @Test func randomAnswersNeverTrapAndRenderWellFormedCards() async throws {
    let bodies = Bodies()
    let app = try ScriptedTransport.app(token: "ghp_PropertyToken0000000000000000000000") { request in
      let (search, history) = bodies.current.withLock { $0 }
      return RenderPathUpstream.answer(request, search: search, history: history)
    }
    var json = HostileJSON(random: SeededGenerator(state: 0x5EED_0009))
    var cardsSeen = 0
    for run in 0..<300 {
      let searchText = json.searchPage()
      let search = json.chance(25) ? json.mutated(searchText) : Array(searchText.utf8)
      let historyText = json.history()
      let history = json.chance(25) ? json.mutated(historyText) : Array(historyText.utf8)
      bodies.current.withLock { $0 = (search, history) }
      // A new query and repository each run, so nothing comes from the cache.
      let (status, body) = try await ScriptedTransport.get(app, "/fragments/results?q=run\(run)&after=0")
      let cards = checkRendered(status, body, "fragment \(run)")
      expectTrue(cards <= 20)
      expectTrue(
        !String(decoding: body, as: UTF8.self).contains(">Private · "),
        "an anonymous reader got a non-public item (run \(run))")
      cardsSeen += cards
      let (starsStatus, stars) = try await ScriptedTransport.get(app, "/fragments/stars/o/r\(run)")
      _ = checkRendered(starsStatus, stars, "stars \(run)")
    }
    expectTrue(cardsSeen > 400, "not vacuous: most runs rendered cards (\(cardsSeen))")
  }
}
