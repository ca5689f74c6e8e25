import Clocks
import CurlClient
import Encodings
import Foundation
import GitHubDouble
import HTTP
import HTTPServer
import TestSupport
import Testing

@testable import App

/// An in-process app with sign-in on against the double's own OAuth side (not a fake): readers sign
/// in on the double's authorize form, and the double counts each token's searches on its own limit.
///
/// ```swift
/// let h = try DoubleSignIn(double: AppHarness.smallDouble(), time: .system)
/// let jar = CookieJar()
/// try await h.signIn(jar, login: "reader1")
/// ```
struct DoubleSignIn: Sendable {
  static let publicURL = "https://reposcroll.test"
  let double: GitHubDouble
  let app: RepoScrollApp

  /// The demo OAuth app unless `app` names the demo GitHub App; `time` and `log` as the app's.
  init(
    double: GitHubDouble, app kind: DoubleAppKind = .oauthApp, time: TimeSource,
    configure: (inout AppConfiguration) -> Void = { _ in },
    log: @escaping @Sendable (String) -> Void = { _ in }
  ) throws {
    self.double = double
    var configuration = try AppHarness.baseConfiguration(api: AppHarness.inProcessBase)
    let githubApp = kind == .githubApp
    configuration.githubClientID =
      githubApp ? DoubleConfiguration.demoAppClientID : DoubleConfiguration.demoClientID
    configuration.githubClientSecret =
      githubApp ? DoubleConfiguration.demoAppClientSecret : DoubleConfiguration.demoClientSecret
    configuration.githubWebURL = AppHarness.inProcessBase
    configuration.publicURL = Self.publicURL
    configuration.sessionKey = Array(repeating: 9, count: 32)
    configure(&configuration)
    app = try RepoScrollApp(
      configuration: configuration, transport: InProcessTransport(handler: double.handler), time: time,
      log: log)
  }

  /// GET `target` from the app with the jar's cookies (and `extra` headers), keeping what it sets.
  func get(_ target: String, _ jar: CookieJar, headers extra: HTTPHeaders = [:]) async throws
    -> ClientResponse
  {
    var headers: HTTPHeaders = ["Host": "reposcroll.test"]
    for field in extra { headers.add(name: field.name, value: field.value) }
    if let cookie = jar.header { headers.add(name: "Cookie", value: cookie) }
    let response = try await InProcessTransport.call(
      app.handler, HTTPRequest(method: .get, target: target, headers: headers))
    jar.take(response)
    return response
  }

  /// The whole flow as a browser makes it: `/login`, the double's Authorize form posted as `login`
  /// (with `private` ticked when asked), and the callback.
  func signIn(_ jar: CookieJar, login: String, seesPrivate: Bool = false) async throws {
    let back = try await authorize(jar, login: login, seesPrivate: seesPrivate)
    expectTrue(back.hasPrefix(Self.publicURL + "/login/callback?"))
    let callback = try await get(String(back.dropFirst(Self.publicURL.utf8.count)), jar)
    expectEqual(callback.status.code, 303, "callback answered \(callback.status)")
  }

  /// `/login` and the double's Authorize form posted as `login` (with `private` ticked when asked):
  /// where the double sends the browser back to, the callback not yet followed.
  func authorize(_ jar: CookieJar, login: String, seesPrivate: Bool = false) async throws -> String {
    let start = try await get("/login", jar)
    let authorize = try #require(start.headers["Location"])
    let query = authorize.split(separator: "?", maxSplits: 1).last.map(String.init) ?? ""
    var form = query + "&" + URLEncoding.formatQuery([("login", login), ("action", "authorize")])
    if seesPrivate { form += "&private=on" }
    let consent = try await InProcessTransport.call(
      double.handler,
      HTTPRequest(
        method: .post, target: "/login/oauth/authorize",
        headers: ["Host": "github.test", "Content-Type": "application/x-www-form-urlencoded"],
        body: Array(form.utf8)))
    return try #require(consent.headers["Location"], "the double answered \(consent.status)")
  }
}

/// Readers on their own GitHub budget: the figure (90 readers, each starting a new search in
/// one minute), with an OAuth app and with a GitHub App, and private repositories that stay their
/// owner's. Serialized: each test signs up to 90 readers in, and eight at once outran their time
/// limit on a loaded 2-core machine.
@Suite("Every reader on their own budget", .serialized, .timeLimit(.minutes(6)))
struct ReaderBudgetTests {
  /// What `readers` readers saw, `signedIn` of them signed in first, each starting a new search.
  struct Outcome: Equatable {
    var served = 0
    var limited = 0
    var signedInServed = 0
  }

  /// With `app`, readers sign in to the double's GitHub App (tokens without scopes, which may see
  /// private repositories, so every answer to them is their own call), else to its OAuth app.
  static func run(readers: Int, signedIn: Int, app: DoubleAppKind = .oauthApp) async throws -> Outcome {
    // GitHub's limits: 30 searches a minute for the server's token, and for each reader's.
    // The double's clock stands still, so every search falls in one minute however slow the machine.
    var c = AppHarness.smallDouble().configuration
    c.searchLimitPerMinute = 30
    c.readerSearchLimitPerMinute = 30
    let frozen = ManualClock(epochSeconds: Date().timeIntervalSince1970)
    let double = GitHubDouble(configuration: c, time: frozen.time)
    // The server's own token: GitHub's 30 searches a minute for everyone not signed in.
    let h = try DoubleSignIn(
      double: double, app: app, time: .system,
      configure: { $0.githubToken = "server-token-for-the-budget-test" })
    var outcome = Outcome()
    for reader in 0..<readers {
      let jar = CookieJar()
      let isSignedIn = reader < signedIn
      if isSignedIn { try await h.signIn(jar, login: "reader\(reader)") }
      // A query no one asked before, so no cache answers it.
      let page = try await h.get("/?q=stars%3A%3E%3D\(reader)", jar)
      let html = String(decoding: page.body, as: UTF8.self)
      expectEqual(page.status.code, 200)
      if html.contains("data-repo-id=") {
        outcome.served += 1
        if isSignedIn { outcome.signedInServed += 1 }
      } else {
        expectTrue(
          html.contains("rate limit"), "neither results nor the rate-limit notice: \(html.prefix(300))")
        outcome.limited += 1
      }
    }
    return outcome
  }

  @Test(arguments: DoubleAppKind.allCases)
  func halfOfNinetyReadersSignedInAreAllServed(_ app: DoubleAppKind) async throws {
    let outcome = try await Self.run(readers: 90, signedIn: 45, app: app)
    expectEqual(outcome.signedInServed, 45, "every signed-in reader gets results")
    // The 45 anonymous readers share the server's 30 searches a minute.
    expectEqual(outcome.served, 45 + 30)
    expectEqual(outcome.limited, 15)
  }

  /// (Nobody signs in, so the kind of app makes no difference.)
  @Test func withNoOneSignedInTheSiteServesThirty() async throws {
    let outcome = try await Self.run(readers: 90, signedIn: 0)
    expectEqual(outcome.served, 30)
    expectEqual(outcome.limited, 60)
  }

  @Test(arguments: DoubleAppKind.allCases)
  func withEveryoneSignedInEveryoneIsServed(_ app: DoubleAppKind) async throws {
    let outcome = try await Self.run(readers: 90, signedIn: 90, app: app)
    expectEqual(outcome, Outcome(served: 90, limited: 0, signedInServed: 90))
  }

  /// The cost of privacy decided by the items: readers of an OAuth app without `repo` share one
  /// search for the same query; readers of a GitHub App (whose tokens may see private repositories,
  /// and whose search answers carry no ETag to prove them equal to a cached one) each make their own,
  /// on their own limit, once per search lifetime. Anonymous readers then share what was public.
  @Test(arguments: DoubleAppKind.allCases)
  func readersOfOneQueryCostOneSearchOrOneEach(_ app: DoubleAppKind) async throws {
    var c = AppHarness.smallDouble().configuration
    c.readerSearchLimitPerMinute = 1000
    let frozen = ManualClock(epochSeconds: Date().timeIntervalSince1970)
    let double = GitHubDouble(configuration: c, time: frozen.time)
    let h = try DoubleSignIn(double: double, app: app, time: .system)
    let readers = 10
    for reader in 0..<readers {
      let jar = CookieJar()
      try await h.signIn(jar, login: "same-query-\(reader)")
      let page = try await h.get("/?q=stars%3A%3E%3D5", jar)
      expectTrue(String(decoding: page.body, as: UTF8.self).contains("data-repo-id="))
    }
    let signedIn = double.counters().calls(.search)
    _ = try await h.get("/?q=stars%3A%3E%3D5", CookieJar())
    expectEqual(double.counters().calls(.search), signedIn, "the anonymous reader shares the public answer")
    // Read-ahead may add one page per search made.
    let pages = app == .githubApp ? readers : 1
    expectTrue(
      (pages...(2 * pages)).contains(signedIn), "\(signedIn) searches for \(readers) readers (\(app))")
  }

  @Test func aPrivateRepositoryReachesOnlyItsOwnerFromAnyCache() async throws {
    let double = AppHarness.smallDouble()
    let hidden = double.catalog.repositories.filter(\.isPrivate)
    let first = try #require(hidden.first, "the small catalog has private repositories")
    let owner = double.catalog.owners[first.ownerIndex].login
    let names = hidden.filter { $0.ownerIndex == first.ownerIndex }.map(\.name)
    let h = try DoubleSignIn(double: double, time: .system)
    let a = CookieJar()
    try await h.signIn(a, login: owner, seesPrivate: true)
    let query = "/?q=user%3A\(owner)&sort=stars&order=desc"
    // A first, so that any cache that could leak holds A's answer when B asks.
    let seenByA = String(decoding: try await h.get(query, a).body, as: UTF8.self)
    let b = CookieJar()
    let seenByB = String(decoding: try await h.get(query, b).body, as: UTF8.self)
    expectTrue(seenByB.contains("data-repo-id="), "B gets the owner's public repositories")
    for name in names {
      expectTrue(seenByA.contains("/\(name)<"), "A sees their private \(name)")
      expectTrue(!seenByB.contains("/\(name)<"), "B never gets A's private \(name)")
    }
    // And the other way round: B's public answer, now cached, does not hide A's private ones.
    let again = String(decoding: try await h.get(query, a).body, as: UTF8.self)
    for name in names { expectTrue(again.contains("/\(name)<")) }
  }
}
