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

@Suite("Sign in with GitHub: the flow, cookies and the reader's token", .timeLimit(.minutes(6)))
struct SignInFlowTests {
  @Test func signInSearchAsTheReaderAndSignOut() async throws {
    let (h, jar) = try SignInHarness.withJar()
    // Anonymous: a sign-in link back to this page, and nothing personal about the answer.
    let anonymous = try await h.get("/?q=swift", jar)
    let anonymousPage = h.text(anonymous)
    expectTrue(anonymousPage.contains("href=\"/login?return_to=%2F%3Fq%3Dswift\">Sign in with GitHub</a>"))
    expectEqual(anonymous.headers["Set-Cookie"], nil)
    expectEqual(anonymous.headers["Cache-Control"], "no-cache")

    // /login: a 302 to GitHub's authorize page with the exact redirect URI, a 128-bit state, an S256
    // challenge and no scope, and a sealed ticket cookie.
    let login = try await h.get("/login?return_to=%2F%3Fq%3Dswift", jar)
    expectEqual(login.status.code, 302)
    let authorize = try #require(login.headers["Location"])
    expectTrue(authorize.hasPrefix("http://github.test/login/oauth/authorize?"))
    let query = URLEncoding.parseQuery(authorize.split(separator: "?", maxSplits: 1)[1])
    func value(_ name: String) -> String? { query.first { $0.name == name }?.value }
    expectEqual(value("client_id"), FakeGitHubOAuth.clientID)
    expectEqual(value("redirect_uri"), "https://reposcroll.test/login/callback")
    expectEqual(value("code_challenge_method"), "S256")
    expectEqual(value("code_challenge")?.utf8.count, 43)
    expectEqual(value("state")?.utf8.count, 22)
    expectEqual(value("scope"), nil)
    let ticketCookie = try #require(login.headers.values(for: "Set-Cookie").first)
    expectTrue(ticketCookie.hasPrefix("__Host-reposcroll_login="))
    for flag in ["HttpOnly", "SameSite=Lax", "Path=/", "Secure", "Max-Age=600"] {
      expectTrue(ticketCookie.contains("; \(flag)"), "login cookie lacks \(flag)")
    }
    expectTrue(!ticketCookie.contains(value("state") ?? "?"), "the state is sealed, not in clear")

    // GitHub's Authorize, then the callback: a 303 back with no Referer, the session cookie set.
    let callback = try await h.get(try h.authorizedCallback(authorize, login: "mona"), jar)
    expectEqual(callback.status.code, 303)
    expectEqual(callback.headers["Location"], "/?q=swift")
    expectEqual(callback.headers["Referrer-Policy"], "no-referrer")
    let setCookies = callback.headers.values(for: "Set-Cookie")
    let session = try #require(setCookies.first { $0.hasPrefix("__Host-reposcroll_session=") })
    for flag in ["HttpOnly", "SameSite=Lax", "Path=/", "Secure"] {
      expectTrue(session.contains("; \(flag)"), "session cookie lacks \(flag)")
    }
    expectTrue(setCookies.contains { $0.hasPrefix("__Host-reposcroll_login=;") && $0.contains("Max-Age=0") })
    let sessionID = try #require(jar[h.sessionCookie])
    expectEqual(sessionID.utf8.count, 43)

    // Signed in: the header shows the reader, privately cached only.
    let page = try await h.get("/?q=swift", jar)
    let html = h.text(page)
    expectEqual(page.headers["Cache-Control"], "private, no-store")
    expectTrue(html.contains("<span class=\"account-login\">mona</span>"))
    expectTrue(html.contains("src=\"/avatars/\(FakeGitHubOAuth.userID("mona"))?s=32\""))
    expectTrue(!html.contains("Sign in with GitHub"))
    let csrf = try #require(SignInHarness.csrf(in: html))

    // The reader's searches go out with their token.
    let before = h.fake.calls.filter { $0.path == "/search/repositories" && $0.identity == "mona" }.count
    let fragment = try await h.get("/fragments/results?q=rust&after=0", jar)
    expectEqual(fragment.status.code, 200)
    expectEqual(fragment.headers["Cache-Control"], "private, no-store")
    expectEqual(HTMLScan.cards(h.text(fragment)).count, 20)
    let after = h.fake.calls.filter { $0.path == "/search/repositories" && $0.identity == "mona" }.count
    expectTrue(after > before, "the reader's search went out as the reader")

    // Sign out: the session ends, the cookie goes, the token is revoked at GitHub.
    let out = try await h.request(
      .post, "/logout", jar, headers: ["Origin": h.publicURL, "Sec-Fetch-Site": "same-origin"],
      body: "csrf=\(csrf)&return_to=%2F%3Fq%3Dswift")
    expectEqual(out.status.code, 303)
    expectEqual(out.headers["Location"], "/?q=swift")
    expectEqual(jar[h.sessionCookie], nil)
    expectTrue(
      try await h.eventually { h.fake.tokens.allSatisfy { $0.revoked } }, "the token was revoked at GitHub")
    // The old cookie opens nothing any more.
    let replay = CookieJar()
    replay.set(h.sessionCookie, sessionID)
    let afterOut = try await h.get("/?q=swift", replay)
    expectTrue(h.text(afterOut).contains("Sign in with GitHub"))
    expectTrue(h.text(afterOut).contains("Your sign-in has ended"))
  }

  @Test func plainHTTPLoopbackCookiesHaveNoSecureAndNoPrefix() async throws {
    let h = try SignInHarness(publicURL: "http://127.0.0.1:8080")
    let jar = CookieJar()
    let response = try await h.signIn(jar, login: "mona")
    let session = try #require(
      response.headers.values(for: "Set-Cookie").first { $0.hasPrefix("reposcroll_session=") })
    expectTrue(!session.contains("Secure"))
    expectTrue(
      session.contains("; HttpOnly") && session.contains("; SameSite=Lax") && session.contains("; Path=/"))
    expectTrue(h.logs.all.contains { $0.contains("plain-http loopback") })
    expectTrue(h.text(try await h.get("/", jar)).contains("account-login"))
  }

  @Test func plainHTTPElsewhereRefusesToStartUnlessAllowed() throws {
    #expect(throws: RepoScrollApp.StartupError.self) {
      try SignInHarness(publicURL: "http://reposcroll.example")
    }
    let allowed = try SignInHarness(publicURL: "http://reposcroll.example") { $0.insecureCookies = true }
    expectTrue(allowed.logs.all.contains { $0.contains("--insecure-cookies") })
  }

  @Test func withoutAClientIDNothingChanges() async throws {
    let h = try SignInHarness(signIn: false)
    let page = h.text(try await h.get("/?q=swift"))
    expectTrue(!page.contains("Sign in"))
    expectTrue(!page.contains("account"))
    try await expectEqual(h.get("/login").status.code, 404)
    try await expectEqual(h.request(.post, "/logout").status.code, 404)
  }

  @Test func aRevokedTokenEndsTheSessionWithANoticeAndLosesNoRows() async throws {
    let (h, jar) = try SignInHarness.withJar()
    try await h.signIn(jar, login: "mona")
    h.fake.revokeAll(of: "mona")
    // Nothing is cached for this query yet, so the reader's call reaches GitHub and meets the 401
    // (a public reader's answer from the shared cache would not).
    let fragment = try await h.get("/fragments/results?q=go&after=20", jar)
    let html = h.text(fragment)
    let anonymousRows = HTMLScan.cards(h.text(try await h.get("/fragments/results?q=go&after=20"))).count
    expectEqual(fragment.status.code, 200)
    expectTrue(HTMLScan.cards(html).count == anonymousRows && anonymousRows == 20, "no row lost")
    expectTrue(html.contains("GitHub no longer accepts your sign-in"))
    expectEqual(jar[h.sessionCookie], nil, "the cookie was cleared")
    expectTrue(h.store.dump.isEmpty, "the session was deleted")
    let next = h.text(try await h.get("/?q=go", jar))
    expectTrue(next.contains("Sign in with GitHub"))
    // On a full page, whole or streamed, the same: every row, and the notice.
    let other = CookieJar()
    try await h.signIn(other, login: "octo")
    h.fake.revokeAll(of: "octo")
    let page = h.text(try await h.get("/?q=language%3Ago", other))
    expectEqual(HTMLScan.cards(page).count, 20)
    expectTrue(page.contains("GitHub no longer accepts your sign-in"))
  }

  @Test func anUnreachableSessionStoreMeansAnonymousWithANoticeNever500() async throws {
    let (h, jar) = try SignInHarness.withJar()
    try await h.signIn(jar, login: "mona")
    h.store.setAvailable(false)
    let page = try await h.get("/?q=swift", jar)
    expectEqual(page.status.code, 200)
    expectTrue(h.text(page).contains("Sign-in is unavailable right now"))
    expectTrue(h.text(page).contains("Sign in with GitHub"))
    let fragment = try await h.get("/fragments/results?q=swift&after=20", jar)
    expectEqual(fragment.status.code, 200)
    expectEqual(HTMLScan.cards(h.text(fragment)).count, 20)
    expectTrue(h.text(fragment).contains("Sign-in is unavailable right now"))
    expectTrue(jar[h.sessionCookie] != nil, "an outage does not sign the reader out")
    h.store.setAvailable(true)
    expectTrue(h.text(try await h.get("/?q=swift", jar)).contains("account-login"))
  }

  @Test func theRateLimitNoticeSaysWhoseLimitItIs() async throws {
    let h = try SignInHarness()
    // Anonymous, on the site's spent budget: offered to go on with their own.
    let reset = Int(Date().timeIntervalSince1970) + 120
    _ = try await InProcessTransport.call(
      h.fake.double.handler,
      HTTPRequest(method: .post, target: "/_double/ratelimit?resource=search&remaining=0&reset=\(reset)"))
    let limited = h.text(try await h.get("/?q=language%3Apython"))
    expectTrue(limited.contains("GitHub’s rate limit was reached."))
    expectTrue(limited.contains("This site’s shared limit is spent."))
    expectTrue(
      limited.contains("<a href=\"/login?return_to=%2F%3Fq%3Dlanguage%253Apython\">Sign in with GitHub</a>"))
    // A signed-in reader on their own spent budget is told it is theirs.
    let jar = CookieJar()
    try await h.signIn(jar, login: "mona")
    h.fake.limit("mona")
    let mine = h.text(try await h.get("/?q=language%3Aruby", jar))
    expectTrue(mine.contains("Your GitHub rate limit was reached."))
    expectTrue(!mine.contains("This site’s shared limit is spent."))
  }

  @Test func starHistoriesGoOutAsTheReader() async throws {
    let (h, jar) = try SignInHarness.withJar()
    try await h.signIn(jar, login: "mona")
    let page = h.text(try await h.get("/?q=stars%3A%3E0&sort=stars", jar))
    let path = try #require(page.firstMatch(of: #/data-stargazers="(/fragments/stars/[^"]+)"/#)).1
    let response = try await h.get(String(path), jar)
    expectEqual(response.status.code, 200)
    expectEqual(response.headers["Cache-Control"], "private, no-store")
    expectTrue(h.fake.calls.contains { $0.path.hasSuffix("/stargazers/history") && $0.identity == "mona" })
  }
}
