import Clocks
import Credentials
import CurlClient
import Foundation
import GitHub
import GitHubDouble
import HTTP
import Synchronization
import TestSupport
import Testing

@testable import App

/// Privacy tried as an attacker would, in process, against the double playing a GitHub App installed
/// on an organisation: reader A (a member) sees the organisation's private repositories; anonymous
/// reader B and signed-in non-member C never get them (page, fragment, owner list, star history,
/// batched histories, a 304), whoever asks first; A still gets them after B's public answer is
/// cached; nothing private reaches the log or `/metrics`. And a server token that sees private data
/// never shows it to anonymous readers.
@Suite("Privacy attacks: a GitHub App installed on an organisation", .timeLimit(.minutes(6)))
struct PrivacyAttackTests {
  /// The lines the app logged.
  final class Lines: Sendable {
    let all = Mutex<[String]>([])
    func add(_ line: String) { all.withLock { $0.append(line) } }
    var text: String { all.withLock { $0.joined(separator: "\n") } }
  }

  /// An app signing readers in with the double's demo GitHub App (no scopes, expiring tokens).
  static func appMode(
    _ double: GitHubDouble, lines: Lines, _ configure: (inout AppConfiguration) -> Void = { _ in }
  ) throws -> DoubleSignIn {
    try DoubleSignIn(double: double, app: .githubApp, time: .system, configure: configure, log: lines.add)
  }

  /// The installed organisation's login, its private repositories' names and every private text.
  static func secrets(_ double: GitHubDouble) throws -> (org: String, names: [String], texts: [String]) {
    let org = try #require(double.catalog.installedOrganisation?.login)
    let repositories = double.catalog.installedRepositories
    expectTrue(repositories.count >= 2)
    let names = repositories.map(\.name)
    let texts = names + repositories.compactMap(\.description)
    return (org, names, texts)
  }

  static func text(_ response: ClientResponse) -> String { String(decoding: response.body, as: UTF8.self) }

  /// Every place a reader can get a repository from, for the organisation's list and search.
  static func targets(org: String, names: [String]) -> [String] {
    [
      "/?q=vault", "/fragments/results?q=vault&after=0", "/fragments/results?q=vault&after=20",
      "/owners/\(org)", "/fragments/owners/\(org)?after=0", "/?q=org%3A\(org)", "/?q=topic%3Ainstalled-app",
      "/fragments/stars?" + names.map { "r=\(org)/\($0)" }.joined(separator: "&"),
    ] + names.map { "/fragments/stars/\(org)/\($0)" }
  }

  /// `page`, the answer to `target`, holds no private text, card or history. A star history's answer
  /// names the repositories the request named (the attacker's own words): it must hold no history.
  static func expectNothingPrivate(_ page: String, _ texts: [String], _ target: String, _ who: String) {
    if target.hasPrefix("/fragments/stars") {
      expectTrue(!page.contains("data-state=\"loaded\""), "\(who) got a private history from \(target)")
      expectTrue(page.contains("data-state=\"unavailable\""))
    } else {
      for secret in texts { expectTrue(!page.contains(secret), "\(who) got \(secret) from \(target)") }
    }
    expectTrue(!page.contains(">Private · "), "\(who) got a private card from \(target)")
  }

  @Test(arguments: [true, false])
  func membersPrivateRepositoriesReachOnlyThemFromAnyCache(memberFirst: Bool) async throws {
    let double = AppHarness.smallDouble()
    let (org, names, texts) = try Self.secrets(double)
    let lines = Lines()
    let h = try Self.appMode(double, lines: lines)
    let a = CookieJar()
    let c = CookieJar()
    try await h.signIn(a, login: "mona")
    try await h.signIn(c, login: "carol")
    let b = CookieJar()
    let targets = Self.targets(org: org, names: names)
    func look(as jar: CookieJar, _ who: String) async throws {
      for target in targets {
        let response = try await h.get(target, jar)
        expectEqual(response.status.code, 200, "\(who) \(target): \(response.status)")
        let page = Self.text(response)
        Self.expectNothingPrivate(page, texts, target, who)
      }
    }
    func member() async throws {
      let page = Self.text(try await h.get("/?q=vault", a))
      for name in names { expectTrue(page.contains("\(org)/\(name)<"), "A sees \(name) in the search") }
      expectTrue(page.contains(">Private · "))
      let owned = Self.text(try await h.get("/owners/\(org)", a))
      expectTrue(names.contains { owned.contains("/\($0)<") }, "A sees them in the owner list")
      for name in names {
        let stars = Self.text(try await h.get("/fragments/stars/\(org)/\(name)", a))
        expectTrue(stars.contains("data-state=\"loaded\""), "A gets the history of \(name): \(stars)")
      }
    }
    if memberFirst { try await member() }
    try await look(as: b, "anonymous B")
    try await look(as: c, "non-member C")
    // After B's and C's public answers are cached, A still gets the private ones.
    try await member()
    // A 304 cannot stand in for A's page either: B revalidating with A's tag gets B's own page.
    let mine = try await h.get("/?q=vault", a)
    expectEqual(mine.headers["Cache-Control"], "private, no-store")
    if let tag = mine.headers["ETag"] {
      let revalidated = try await h.get("/?q=vault", b, headers: ["If-None-Match": tag])
      expectEqual(revalidated.status.code, 200)
    }
    // Nothing private in the log or the metrics.
    let metrics = Self.text(try await h.get("/metrics", CookieJar()))
    for secret in texts {
      expectTrue(!metrics.contains(secret))
      expectTrue(!lines.text.contains(secret), "the log names \(secret)")
    }
    expectTrue(metrics.contains("reposcroll_upstream_own_answers_total "))
    expectTrue(
      !metrics.contains("reposcroll_upstream_own_answers_total 0\n"), "A's answers were counted as own")
  }

  @Test(arguments: [ServerTokenAccess.repo, .fineGrained])
  func aServerTokenThatSeesPrivateDataNeverShowsItToAnonymousReaders(_ access: ServerTokenAccess) async throws
  {
    let double = AppHarness.smallDouble { $0.serverTokenAccess = access }
    let (org, names, texts) = try Self.secrets(double)
    let lines = Lines()
    let h = try Self.appMode(double, lines: lines) {
      $0.githubToken = "ghp_serverTokenThatSeesPrivate0000000"
    }
    await expectEqual(h.app.checkServerToken(), (access == .repo ? .repoScope : .unknown))
    expectEqual(lines.all.withLock { $0.filter { $0.contains("warning: the GitHub token") }.count }, 1)
    let b = CookieJar()
    for target in Self.targets(org: org, names: names) {
      Self.expectNothingPrivate(Self.text(try await h.get(target, b)), texts, target, "anonymous B")
    }
    let metrics = Self.text(try await h.get("/metrics", CookieJar()))
    expectTrue(metrics.contains("reposcroll_github_token_may_see_private 1"))
    let withheld = try #require(
      metrics.split(separator: "\n").first { $0.hasPrefix("reposcroll_private_items_withheld_total ") })
    expectTrue((Int(withheld.split(separator: " ").last ?? "") ?? 0) >= names.count, "\(withheld)")
    expectTrue(lines.text.contains("left out"), "one line per answer that held private items")
    for secret in texts { expectTrue(!lines.text.contains(secret)) }
    // A member signed in still gets them.
    let a = CookieJar()
    try await h.signIn(a, login: "mona")
    let page = Self.text(try await h.get("/?q=vault", a))
    for name in names { expectTrue(page.contains("\(org)/\(name)<")) }
  }

  @Test func aServerTokenWithPublicAccessOnlyIsNotWarnedAbout() async throws {
    let lines = Lines()
    let h = try Self.appMode(AppHarness.smallDouble(), lines: lines) {
      $0.githubToken = "ghp_publicOnlyToken000000000000000"
    }
    await expectEqual(h.app.checkServerToken(), .publicOnly)
    expectTrue(!lines.text.contains("warning"))
    expectTrue(
      Self.text(try await h.get("/metrics", CookieJar())).contains(
        "reposcroll_github_token_may_see_private 0"))
  }
}
