import Clocks
import Credentials
import CurlClient
import Encodings
import Foundation
import GitHub
import GitHubDouble
import HTTP
import HTTPServer
import Sessions
import TestSupport
import Testing

@testable import App

/// A GitHub App reader's 8-hour token in the product, against the double's App mode: renewed once
/// however many requests meet the expiry, before use when it is nearly over, and a refused renewal
/// ends the session cleanly. Revocation wherever a token is left behind.
@Suite("Sign-in with a GitHub App: expiring tokens", .timeLimit(.minutes(6)))
struct TokenRenewalTests {
  static let list = "stars:>=0"

  /// An app signed in to the demo GitHub App on `clock`, over a fresh double, and a reader's jar.
  static func signedIn(
    login: String = "app-reader",
    clock: ManualClock = ManualClock(epochSeconds: Date().timeIntervalSince1970),
    logs: LogLines = LogLines(), configure: (inout AppConfiguration) -> Void = { _ in }
  ) async throws -> (DoubleSignIn, CookieJar) {
    let h = try DoubleSignIn(
      double: AppHarness.smallDouble(), app: .githubApp, time: clock.time, configure: configure,
      log: { logs.append($0) })
    let jar = CookieJar()
    try await h.signIn(jar, login: login)
    return (h, jar)
  }

  /// Refreshes the double saw, and its searches by identity.
  static func refreshes(_ double: GitHubDouble) -> [DoubleRequestRecord] {
    double.requestLog().filter { $0.endpoint == .tokenRefresh }
  }

  static func text(_ response: ClientResponse) -> String { String(decoding: response.body, as: UTF8.self) }

  /// The reader's session record as the app holds it.
  static func record(_ h: DoubleSignIn, _ jar: CookieJar) async throws -> SessionRecord {
    let cookie = try #require(jar["__Host-reposcroll_session"])
    let book = try #require(h.app.signIn?.book)
    guard case .found(let session) = await book.lookup(cookieValue: cookie[...]) else {
      throw SessionStoreError.unavailable("no session")
    }
    return session.record
  }

  @Test func aSignInKeepsTheRefreshTokenSealedWithBothExpiries() async throws {
    let clock = ManualClock(epochSeconds: Date().timeIntervalSince1970)
    let (h, jar) = try await Self.signedIn(clock: clock)
    let record = try await Self.record(h, jar)
    expectTrue(record.reader.token.hasPrefix("ghu_"))
    expectEqual(record.expiry?.refreshToken?.hasPrefix("ghr_"), true)
    expectEqual(record.expiry?.accessExpires, clock.now + 28_800)
    expectEqual(record.expiry?.refreshExpires, clock.now + 15_897_600)
    expectTrue(!"\(record)".contains(record.expiry?.refreshToken ?? "-"))
  }

  @Test func afterEightHoursTwentyRequestsInFlightRefreshOnceAndAreAllServedAsTheReader() async throws {
    let (h, jar) = try await Self.signedIn()
    // Warm nothing: every request below goes upstream with the reader's token.
    h.double.advanceTokenClock(by: 28_800)
    h.double.reset()
    let names = h.double.catalog.repositories.prefix(10).map {
      "\(h.double.catalog.owner(of: $0).login)/\($0.name)"
    }
    let statuses = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
      for index in 0..<20 {
        group.addTask {
          let target =
            index.isMultiple(of: 2)
            ? "/fragments/results?q=\(Self.list)&after=\(20 * (index / 2 + 1))"
            : "/fragments/stars/\(names[index / 2])"
          let response = try await h.get(target, jar)
          return (response.status.code, Self.text(response).contains("no longer accepts"))
        }
      }
      var all: [(Int, Bool)] = []
      for try await outcome in group { all.append(outcome) }
      return all
    }
    expectTrue(statuses.allSatisfy { $0.0 == 200 && !$0.1 }, "\(statuses)")
    expectEqual(Self.refreshes(h.double).count, 1)
    expectEqual(Self.refreshes(h.double).first?.error, nil)
    expectEqual(h.app.signIn?.metrics.refreshes(.ok), 1)
    let upstream = h.double.requestLog().filter {
      [.search, .history].contains($0.endpoint) && $0.status == 200
    }
    expectTrue(
      !upstream.isEmpty && upstream.allSatisfy { $0.identity == "app-reader" }, "a request went anonymously")
    // The reader is still signed in, on the rotated token, which is the only live one.
    expectTrue(try await Self.record(h, jar).reader.token.hasPrefix("ghu_"))
    expectEqual(h.double.liveTokenCount(login: "app-reader"), 1)
  }

  @Test func aTokenWithUnderFiveMinutesLeftIsRefreshedBeforeUse() async throws {
    let clock = ManualClock(epochSeconds: Date().timeIntervalSince1970)
    let (h, jar) = try await Self.signedIn(clock: clock)
    let before = try await Self.record(h, jar).reader.token
    clock.advance(28_800 - 299)
    h.double.reset()
    let page = try await h.get("/fragments/results?q=\(Self.list)&after=20", jar)
    expectEqual(page.status.code, 200)
    let log = h.double.requestLog()
    expectEqual(log.first?.endpoint, .tokenRefresh, "the refresh came first")
    expectTrue(!log.contains { $0.status == 401 }, "the old token was never tried")
    expectTrue(try await Self.record(h, jar).reader.token != before)
    try await expectEqual(Self.record(h, jar).expiry?.accessExpires, clock.now + 28_800)
  }

  @Test func anExpiredRefreshTokenEndsTheSessionWithTheNoticeAndLosesNoRows() async throws {
    let (h, jar) = try await Self.signedIn()
    h.double.advanceTokenClock(by: 15_897_600 + 28_800)
    let fragment = try await h.get("/fragments/results?q=\(Self.list)&after=20", jar)
    expectEqual(fragment.status.code, 200)
    let html = Self.text(fragment)
    expectTrue(html.contains("GitHub no longer accepts your sign-in"))
    expectEqual(HTMLScan.cards(html).count, 20, "the batch came anonymously")
    expectTrue(fragment.headers.values(for: "Set-Cookie").contains { $0.contains("Max-Age=0") })
    expectEqual(Self.refreshes(h.double).map(\.error), ["bad_refresh_token"])
    expectEqual(h.app.signIn?.metrics.refreshes(.refused), 1)
    let metrics = String(decoding: try await h.get("/metrics", CookieJar()).body, as: UTF8.self)
    expectTrue(metrics.contains("reposcroll_token_refreshes_total{outcome=\"refused\"} 1"))
    expectTrue(metrics.contains("reposcroll_sign_ins_refused_full_total 0"))
    // Anonymous from then on, without a notice.
    let next = try await h.get("/?q=\(Self.list)", jar)
    expectTrue(next.status.code == 200 && !Self.text(next).contains("no longer accepts"))
    expectEqual(jar["__Host-reposcroll_session"], nil)
  }

  @Test func aRefreshTokenUsedBySomeoneElseEndsTheSessionCleanly() async throws {
    let (h, jar) = try await Self.signedIn()
    // An attacker who got hold of the refresh token uses it first.
    let stolen = try #require(try await Self.record(h, jar).expiry?.refreshToken)
    let form = URLEncoding.formatQuery([
      ("client_id", DoubleConfiguration.demoAppClientID),
      ("client_secret", DoubleConfiguration.demoAppClientSecret),
      ("grant_type", "refresh_token"), ("refresh_token", stolen),
    ])
    let used = try await InProcessTransport.call(
      h.double.handler,
      HTTPRequest(
        method: .post, target: "/login/oauth/access_token",
        headers: [
          "Host": "github.test", "Accept": "application/json",
          "Content-Type": "application/x-www-form-urlencoded",
        ],
        body: Array(form.utf8)))
    expectTrue(Self.text(used).contains("ghu_"))
    // The reader's token was rotated away: their next request renews, is refused, and signs them out.
    let page = try await h.get("/?q=\(Self.list)", jar)
    expectEqual(page.status.code, 200)
    expectTrue(Self.text(page).contains("GitHub no longer accepts your sign-in"))
    expectEqual(HTMLScan.cards(Self.text(page)).count, 20)
    expectEqual(Self.refreshes(h.double).last?.error, "bad_refresh_token")
  }

  @Test func anOAuthAppsTokenIsNeverRefreshed() async throws {
    let clock = ManualClock(epochSeconds: Date().timeIntervalSince1970)
    let h = try DoubleSignIn(double: AppHarness.smallDouble(), time: clock.time)
    let jar = CookieJar()
    try await h.signIn(jar, login: "classic")
    try await expectEqual(Self.record(h, jar).expiry, nil)
    h.double.advanceTokenClock(by: 365 * 86_400)
    clock.advance(6 * 86_400)
    let page = try await h.get("/?q=\(Self.list)", jar)
    expectTrue(page.status.code == 200 && !Self.text(page).contains("no longer accepts"))
    expectTrue(Self.refreshes(h.double).isEmpty)
    expectTrue(h.double.requestLog().contains { $0.endpoint == .search && $0.identity == "classic" })
  }

  @Test func aSignInOverALiveSessionLeavesOneLiveToken() async throws {
    let (h, jar) = try await Self.signedIn(login: "twice")
    expectEqual(h.double.liveTokenCount(login: "twice"), 1)
    try await h.signIn(jar, login: "twice")
    expectTrue(await eventually { h.double.liveTokenCount(login: "twice") == 1 })
    expectEqual(h.double.liveTokenCount(login: "twice"), 1)
  }

  @Test func idleExpiryRevokesTheTokenWhenNoticed() async throws {
    let clock = ManualClock(epochSeconds: Date().timeIntervalSince1970)
    let (h, jar) = try await Self.signedIn(login: "idler", clock: clock)
    clock.advance(7 * 86_400 + 1)
    let page = try await h.get("/?q=\(Self.list)", jar)
    expectTrue(Self.text(page).contains("Your sign-in has ended"))
    expectTrue(await eventually { h.double.liveTokenCount(login: "idler") == 0 })
  }

  @Test func aFailedUserLookupAfterTheExchangeRevokesTheToken() async throws {
    let double = AppHarness.smallDouble()
    let logs = LogLines()
    let h = try DoubleSignIn(double: double, app: .githubApp, time: .system, log: { logs.append($0) })
    // The user's own core budget is spent: `GET /user` answers 403 right after the exchange.
    double.setRateLimit(
      resource: .core, remaining: 0, reset: Int(Date().timeIntervalSince1970) + 3600, login: "unlucky")
    let jar = CookieJar()
    let back = try await h.authorize(jar, login: "unlucky")
    let callback = try await h.get(String(back.dropFirst(DoubleSignIn.publicURL.utf8.count)), jar)
    expectTrue(callback.status.code == 502 && jar["__Host-reposcroll_session"] == nil)
    expectTrue(await eventually { double.liveTokenCount(login: "unlucky") == 0 })
    expectTrue(double.requestLog().contains { $0.endpoint == .revokeToken && $0.status == 204 })
  }

  @Test func aFullStoreRefusesASignInWithA503AndEvictsNobody() async throws {
    let (h, first) = try await Self.signedIn(login: "early") { $0.maxSessions = 1 }
    let late = CookieJar()
    let back = try await h.authorize(late, login: "late")
    let refused = try await h.get(String(back.dropFirst(DoubleSignIn.publicURL.utf8.count)), late)
    expectTrue(refused.status.code == 503 && refused.headers["Retry-After"] != nil)
    expectTrue(Self.text(refused).contains("Sign-in is full right now"))
    expectEqual(late["__Host-reposcroll_session"], nil)
    expectTrue(await eventually { h.double.liveTokenCount(login: "late") == 0 })
    try await expectEqual(Self.record(h, first).reader.login, "early")
  }
}
