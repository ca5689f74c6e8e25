import Clocks
import TestSupport
import Testing

@testable import HTTPServer

/// Inputs found while fuzzing the static path normaliser (`script/fuzz StaticPath`): it split paths by
/// characters, so a combining mark right after `/` glued the slash to the next segment.
@Suite(.timeLimit(.minutes(3))) struct FuzzRegressionTests {
  /// URL prefix, raw path, and the relative path it may resolve to (nil for 404).
  @Test(
    arguments: [
      // The fuzzer's reproducer: `/` + U+034B was kept as a leading slash.
      ("", "/\u{34B}a/b", "\u{34B}a/b"),
      // `..` then `/` + U+0301 passed as one odd segment, a `..` the realpath check alone caught.
      ("/static", "/static/../%CC%81/secret.txt", nil),
      ("/static", "/static/../\u{301}/secret.txt", nil),
      ("/static", "/static/a/../\u{301}x", nil),
      // An encoded slash hidden from a character-wise search by a following combining mark.
      ("/static", "/static/a%2f\u{301}b", nil),
      ("/static", "/static/a%5C\u{301}b", nil),
      ("/static", "/static/a%00\u{301}b", nil),
      ("/static", "/static/%CD%8B/x", "\u{34B}/x"),
      ("/static", "/static/css/app.css", "css/app.css"),
      ("/static", "/static/a/./b/", "a/b/index.html"),
      // U+06DD (a prepended concatenation mark) makes "\u{6DD}/" one Character: the folder still
      // ends in a slash, byte-wise, so it gets index.html.
      ("/static", "/static/w\u{6DD}/", "w\u{6DD}/index.html"),
    ] as [(String, String, String?)])
  func relativePath(_ prefix: String, _ raw: String, _ expected: String?) throws {
    // The normaliser never touches the file system, so any existing folder is a fine root.
    let files = try StaticFiles(root: "/", time: .system)
    expectEqual(files.relativePath(raw[...], urlPrefix: prefix), expected)
  }

  @Test func normaliseSplitsOnBytes() {
    expectEqual(StaticFiles.normalise("/../\u{301}x"), nil)
    expectEqual(StaticFiles.normalise("/\u{301}x/./y"), "\u{301}x/y")
  }

  /// A hashed name of only dots around the hash would have named a `..` or `.` segment.
  @Test(arguments: ["css/..3f2a9c1b.", "..3f2a9c1b.", "css/.3f2a9c1b.", ".3f2a9c1b"])
  func hashedNameOfDotsIsNotSplit(_ path: String) {
    expectTrue(StaticFiles.splitHashedName(path) == nil)
  }

  @Test func hashedNameStillSplits() throws {
    let split = try #require(StaticFiles.splitHashedName("css/app.3f2a9c1b.css"))
    expectTrue(split.0 == "css/app.css" && split.1 == "3f2a9c1b")
  }
}
