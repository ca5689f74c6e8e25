import App
import Credentials
import CurlClient
import Encodings
import Foundation
import GitHubDouble
import HTTP
import Sessions
import TestSupport
import Testing

@testable import App

@Suite("Sign in with GitHub: attacks", .timeLimit(.minutes(6)))
struct SignInAttackTests {
  @Test func aForgedOrMissingStateIsRefused() async throws {
    let (h, jar) = try SignInHarness.withJar()
    let authorize = try await h.startLogin(jar)
    let callback = try h.authorizedCallback(authorize, login: "mona")
    let code = try #require(
      URLEncoding.parseQuery(callback.split(separator: "?")[1]).first { $0.name == "code" }?.value)
    for target in [
      "/login/callback?" + URLEncoding.formatQuery([("code", code), ("state", "forged-state-value-xx")]),
      "/login/callback?" + URLEncoding.formatQuery([("code", code)]),
    ] {
      let attempt = CookieJar()
      attempt.set(h.loginCookie, try #require(jar[h.loginCookie]))
      let response = try await h.get(target, attempt)
      expectEqual(response.status.code, 403)
      expectTrue(h.text(response).contains("Sign-in could not be verified"))
      expectTrue(h.text(response).contains("Back to search"))
      expectEqual(attempt[h.sessionCookie], nil)
    }
    // Without the ticket cookie (a callback this browser never started) the state cannot match.
    let stranger = try await h.get(callback, CookieJar())
    expectEqual(stranger.status.code, 400)
    expectTrue(h.text(stranger).contains("not started in this browser"))
    // A tampered ticket is no ticket.
    let tampered = CookieJar()
    tampered.set(h.loginCookie, String(try #require(jar[h.loginCookie]).dropLast(2)) + "AA")
    try await expectEqual(h.get(callback, tampered).status.code, 400)
  }

  @Test func aReplayedCodeIsRefused() async throws {
    let (h, jar) = try SignInHarness.withJar()
    let authorize = try await h.startLogin(jar)
    let callback = try h.authorizedCallback(authorize, login: "mona")
    let first = try await h.get(callback, jar)
    expectEqual(first.status.code, 303)
    // The attacker replays the code with a fresh ticket of their own (the state matches it).
    let attacker = CookieJar()
    let fresh = try await h.startLogin(attacker)
    let state = try #require(
      URLEncoding.parseQuery(fresh.split(separator: "?")[1]).first { $0.name == "state" }?.value)
    let code = try #require(
      URLEncoding.parseQuery(callback.split(separator: "?")[1]).first { $0.name == "code" }?.value)
    let replay = try await h.get(
      "/login/callback?" + URLEncoding.formatQuery([("code", code), ("state", state)]), attacker)
    expectEqual(replay.status.code, 400)
    expectTrue(h.text(replay).contains("expired or was already used"))
    expectEqual(attacker[h.sessionCookie], nil)
  }

  @Test func cancellingAtGitHubIsAClearPage() async throws {
    let (h, jar) = try SignInHarness.withJar()
    let authorize = try await h.startLogin(jar, returnTo: "/?q=swift")
    let state = try #require(
      URLEncoding.parseQuery(authorize.split(separator: "?")[1]).first { $0.name == "state" }?.value)
    let response = try await h.get(
      "/login/callback?"
        + URLEncoding.formatQuery([
          ("error", "access_denied"), ("error_description", "The user has denied your application access."),
          ("state", state),
        ]), jar)
    expectEqual(response.status.code, 403)
    expectTrue(h.text(response).contains("Sign-in cancelled"))
    expectTrue(h.text(response).contains("href=\"/?q=swift\">Back to search"))
    expectEqual(jar[h.sessionCookie], nil)
    expectEqual(jar[h.loginCookie], nil, "the ticket is spent")
  }

  @Test(arguments: [
    (FakeGitHubOAuth.Fault.down, 502), (FakeGitHubOAuth.Fault.slow, 504),
    (FakeGitHubOAuth.Fault.hostile, 502),
  ])
  func gitHubDownSlowOrHostileIsAClearPageNever500(fault: FakeGitHubOAuth.Fault, status: Int) async throws {
    let (h, jar) = try SignInHarness.withJar()
    let authorize = try await h.startLogin(jar)
    let callback = try h.authorizedCallback(authorize, login: "mona")
    h.fake.setTokenEndpointFault(fault)
    let response = try await h.get(callback, jar)
    expectEqual(response.status.code, status)
    expectTrue(h.text(response).contains("Back to search"))
    expectEqual(jar[h.sessionCookie], nil)
  }

  @Test func returnToCannotLeaveTheSite() async throws {
    let h = try SignInHarness()
    for hostile in [
      "//evil.example", "https://evil.example", "/\\evil.example", "\\\\evil.example", "/%0a/evil",
      "/\t/evil.example",
      "javascript:alert(1)", "evil.example", "", "/login?return_to=//evil.example", "/ok\u{7f}",
    ] {
      let jar = CookieJar()
      let response = try await h.signIn(jar, login: "mona", returnTo: hostile)
      expectEqual(response.headers["Location"], "/", "return_to \(hostile.debugDescription) was followed")
    }
    let jar = CookieJar()
    try await expectEqual(
      h.signIn(jar, login: "mona", returnTo: "/owners/mona?page=2").headers["Location"], "/owners/mona?page=2"
    )
    for safe in ["/", "/?q=a%20b", "/owners/x"] { expectTrue(ReturnPath.isSafe(safe)) }
  }

  @Test func signOutNeedsThisSessionsTokenAndThisSite() async throws {
    let (h, jar) = try SignInHarness.withJar()
    try await h.signIn(jar, login: "mona")
    let csrf = try #require(SignInHarness.csrf(in: h.text(try await h.get("/", jar))))
    let other = CookieJar()
    try await h.signIn(other, login: "octo")
    let otherCSRF = try #require(SignInHarness.csrf(in: h.text(try await h.get("/", other))))
    let attempts: [(HTTPHeaders, String)] = [
      // A cross-site form without the token, then the token from another origin.
      (["Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"], ""),
      (["Origin": "https://evil.example"], "csrf=\(csrf)"),
      (["Sec-Fetch-Site": "cross-site"], "csrf=\(csrf)"),
      (["Sec-Fetch-Site": "same-site"], "csrf=\(csrf)"),
      ([:], ""),  // no token at all
      ([:], "csrf=\(otherCSRF)"),  // another session's token
      ([:], "csrf=\(csrf.dropLast())"),
    ]
    for (headers, body) in attempts {
      let response = try await h.request(.post, "/logout", jar, headers: headers, body: body)
      expectEqual(
        response.status.code, 403, "logout with \(headers) \(body.prefix(5)) answered \(response.status)")
      expectTrue(jar[h.sessionCookie] != nil)
    }
    // A GET changes nothing.
    let get = try await h.get("/logout", jar)
    expectEqual(get.status.code, 405)
    expectTrue(h.text(try await h.get("/", jar)).contains("account-login"))
    expectTrue(h.fake.tokens.allSatisfy { !$0.revoked })
  }

  @Test func aCookieSetBeforeSignInIsReplacedNotAdopted() async throws {
    let h = try SignInHarness()
    // The attacker signs in and plants their own valid session id in the victim's browser.
    let attacker = CookieJar()
    try await h.signIn(attacker, login: "attacker")
    let planted = try #require(attacker[h.sessionCookie])
    let victim = CookieJar()
    victim.set(h.sessionCookie, planted)
    try await h.signIn(victim, login: "victim")
    let issued = try #require(victim[h.sessionCookie])
    expectTrue(issued != planted, "sign-in issued a new id")
    // The planted session was ended, and the victim's page is the victim's.
    expectTrue(h.text(try await h.get("/", victim)).contains(">victim</span>"))
    expectTrue(!h.text(try await h.get("/", attacker)).contains("account-login"))
    // A made-up id planted before sign-in is not adopted either.
    let fixed = CookieJar()
    let madeUp = String(repeating: "A", count: 43)
    fixed.set(h.sessionCookie, madeUp)
    try await h.signIn(fixed, login: "victim")
    expectTrue(fixed[h.sessionCookie] != madeUp)
  }

  @Test func aTamperedSessionCookieIsAnonymousAndCleared() async throws {
    let (h, jar) = try SignInHarness.withJar()
    try await h.signIn(jar, login: "mona")
    let good = try #require(jar[h.sessionCookie])
    for bad in [
      String(good.dropLast()) + (good.hasSuffix("A") ? "B" : "A"), good + "A", "x", "<script>",
      String(good.reversed()),
    ] {
      let tampered = CookieJar()
      tampered.set(h.sessionCookie, bad)
      let response = try await h.get("/?q=swift", tampered)
      expectEqual(response.status.code, 200)
      expectTrue(h.text(response).contains("Sign in with GitHub"))
      expectTrue(!h.text(response).contains("account-login"))
      expectEqual(tampered[h.sessionCookie], nil, "the bad cookie is cleared")
      expectTrue(!h.text(response).contains(bad) || bad == "x", "the cookie is not echoed")
    }
  }

  @Test func anExpiredSessionEndsWithANotice() async throws {
    let (h, jar) = try SignInHarness.withJar()
    try await h.signIn(jar, login: "mona")
    h.clock.advance(6 * 86_400)
    expectTrue(h.text(try await h.get("/", jar)).contains("account-login"), "6 idle days: still signed in")
    h.clock.advance(8 * 86_400)
    let page = try await h.get("/", jar)
    expectTrue(h.text(page).contains("Your sign-in has ended"))
    expectTrue(!h.text(page).contains("account-login"))
    expectEqual(jar[h.sessionCookie], nil)
  }

  @Test func theTokenAndSessionIDAreNeverInPagesHeadersOrLogs() async throws {
    let (h, jar) = try SignInHarness.withJar()
    try await h.signIn(jar, login: "mona", returnTo: "/?q=swift")
    let sessionID = try #require(jar[h.sessionCookie])
    _ = try await h.get("/?q=swift", jar)
    _ = try await h.get("/fragments/results?q=swift&after=20", jar)
    _ = try await h.get("/owners/mona", jar)
    _ = try await h.get("/nope", jar)
    _ = try await h.get("/metrics", jar)
    _ = try await h.get("/healthz", jar)
    h.fake.revokeAll(of: "mona")
    _ = try await h.get("/fragments/results?q=swift&after=40", jar)
    let tokens = h.fake.tokens.map(\.token)
    expectTrue(!tokens.isEmpty)
    let everything = h.bodies.all + h.logs.all
    for secret in tokens + [sessionID, FakeGitHubOAuth.clientSecret] {
      expectTrue(!everything.contains { $0.contains(secret) }, "a secret (\(secret.prefix(4))…) leaked")
    }
    expectTrue(!"\(h.app.client)".contains(tokens[0]))
  }
}
