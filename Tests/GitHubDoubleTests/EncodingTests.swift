import Encodings
import HTTP
import TestSupport
import Testing

@testable import GitHubDouble

@Suite("Encoding", .timeLimit(.minutes(3)))
struct EncodingTests {
  @Test(
    "dates are written as GitHub's ISO 8601 UTC",
    arguments: [
      (0, "1970-01-01T00:00:00Z"), (1_795_003_200, "2026-11-18T12:00:00Z"),
      (951_782_400, "2000-02-29T00:00:00Z"),
      (1_204_329_599, "2008-02-29T23:59:59Z"),
    ])
  func dates(unix: Int, text: String) throws {
    var w = JSONWriter()
    w.objectStart()
    w.date("d", unix)
    w.objectEnd()
    try expectEqual(SchemaJSON.parse(w.bytes)["d"]?.string, text)
  }

  @Test("weeks start on Sunday 00:00 UTC")
  func weekStart() {
    expectEqual(ISODate.weekStart(1_795_003_200), 1_794_700_800)  // Wed 2026-11-18 -> Sun 2026-11-15
    expectEqual(ISODate.weekStart(1_794_700_800), 1_794_700_800)
  }

  @Test(
    "strings and numbers round-trip through the writer, escapes included",
    arguments: [
      "plain", "quote \" and backslash \\", "tab\tnewline\ncontrol\u{01}", "emoji 🚀 <b>html</b>", "",
    ])
  func strings(text: String) throws {
    var w = JSONWriter()
    w.arrayStart()
    w.string(text)
    w.int(-9_223_372_036_854_775_807)
    w.int(1_234_567)
    w.int(0)
    w.arrayEnd()
    let j = try SchemaJSON.parse(w.bytes)
    expectEqual(j[0]?.string, text)
    expectEqual(j[1]?.int, -9_223_372_036_854_775_807)
    expectEqual(j[2]?.int, 1_234_567)
    expectEqual(j[3]?.int, 0)
  }

  @Test("node ids are GitHub's base64 legacy form")
  func nodeIDs() {
    expectEqual(Base64.encode(Array("010:Repository68911683".utf8)), "MDEwOlJlcG9zaXRvcnk2ODkxMTY4Mw==")
    expectEqual(Base64.encode(Array("04:User5294331".utf8)), "MDQ6VXNlcjUyOTQzMzE=")
  }
}
