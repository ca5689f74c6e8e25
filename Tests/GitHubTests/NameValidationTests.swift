import TestSupport
import Testing

@testable import GitHub

@Suite("GitHub name rules", .timeLimit(.minutes(3)))
struct NameValidationTests {
  @Test(arguments: [
    ("octocat", true), ("a", true), ("my-org", true), ("A1-b2-C3", true),
    (String(repeating: "a", count: 39), true),
    (String(repeating: "a", count: 40), false), ("", false), ("-lead", false), ("trail-", false),
    ("dou--ble", false), ("under_score", false), ("dot.ted", false), ("sp ace", false), ("ümlaut", false),
    ("a/b", false), ("%2e", false), ("a\n", false),
  ])
  func ownerNames(_ name: String, _ valid: Bool) {
    expectEqual(isValidOwnerName(name), valid)
  }

  @Test(arguments: [
    ("swift", true), ("my.repo_1-x", true), (".github", true), ("...", true), ("a..b", true),
    (String(repeating: "r", count: 100), true), (String(repeating: "r", count: 101), false), ("", false),
    (".", false), ("..", false), ("a/b", false), ("a b", false), ("a?b", false), ("a#b", false), ("é", false),
    ("a%20b", false),
  ])
  func repoNames(_ name: String, _ valid: Bool) {
    expectEqual(isValidRepoName(name), valid)
  }
}
