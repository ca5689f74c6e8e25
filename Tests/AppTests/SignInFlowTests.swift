import App
import Credentials
import CurlClient
import Encodings
import Foundation
import GitHubDouble
import HTTP
import Sessions
import Testing

@testable import App

@Suite("Sign in with GitHub: the flow, cookies and the reader's token", .timeLimit(.minutes(6)))
struct SignInFlowTests {
  @Test func signInSearchAsTheReaderAndSignOut() async throws {
    let (h, jar) = try SignInHarness.withJar()
    // Anonymous: a sign-in link back to this page, and nothing personal about the answer.
    let anonymous = try await h.get("/?q=swift", jar)
    let anonymousPage = h.text(anonymous)
    #expect(anonymousPage.contains("href=\"/login?return_to=%2F%3Fq%3Dswift\">Sign in with GitHub</a>"))
    #expect(anonymous.headers["Set-Cookie"] == nil)
    #expect(anonymous.headers["Cache-Control"] == "no-cache")

    // /login: a 302 to GitHub's authorize page with the exact redirect URI, a 128-bit state, an S256
    // challenge and no scope, and a sealed ticket cookie.
    let login = try await h.get("/login?return_to=%2F%3Fq%3Dswift", jar)
    #expect(login.status.code == 302)
    let authorize = try #require(login.headers["Location"])
    #expect(authorize.hasPrefix("http://github.test/login/oauth/authorize?"))
    let query = URLEncoding.parseQuery(authorize.split(separator: "?", maxSplits: 1)[1])
    func value(_ name: String) -> String? { query.first { $0.name == name }?.value }
    #expect(value("client_id") == FakeGitHubOAuth.clientID)
    #expect(value("redirect_uri") == "https://reposcroll.test/login/callback")
    #expect(value("code_challenge_method") == "S256")
    #expect(value("code_challenge")?.utf8.count == 43)
    #expect(value("state")?.utf8.count == 22)
    #expect(value("scope") == nil)
    let ticketCookie = try #require(login.headers.values(for: "Set-Cookie").first)
    #expect(ticketCookie.hasPrefix("__Host-reposcroll_login="))
    for flag in ["HttpOnly", "SameSite=Lax", "Path=/", "Secure", "Max-Age=600"] {
      #expect(ticketCookie.contains("; \(flag)"), "login cookie lacks \(flag)")
    }
    #expect(!ticketCookie.contains(value("state") ?? "?"), "the state is sealed, not in clear")

    // GitHub's Authorize, then the callback: a 303 back with no Referer, the session cookie set.
    let callback = try await h.get(try h.authorizedCallback(authorize, login: "mona"), jar)
    #expect(callback.status.code == 303)
    #expect(callback.headers["Location"] == "/?q=swift")
    #expect(callback.headers["Referrer-Policy"] == "no-referrer")
    let setCookies = callback.headers.values(for: "Set-Cookie")
    let session = try #require(setCookies.first { $0.hasPrefix("__Host-reposcroll_session=") })
    for flag in ["HttpOnly", "SameSite=Lax", "Path=/", "Secure"] {
      #expect(session.contains("; \(flag)"), "session cookie lacks \(flag)")
    }
    #expect(setCookies.contains { $0.hasPrefix("__Host-reposcroll_login=;") && $0.contains("Max-Age=0") })
    let sessionID = try #require(jar[h.sessionCookie])
    #expect(sessionID.utf8.count == 43)

    // Signed in: the header shows the reader, privately cached only.
    let page = try await h.get("/?q=swift", jar)
    let html = h.text(page)
    #expect(page.headers["Cache-Control"] == "private, no-store")
    #expect(html.contains("<span class=\"account-login\">mona</span>"))
    #expect(html.contains("src=\"/avatars/\(FakeGitHubOAuth.userID("mona"))?s=32\""))
    #expect(!html.contains("Sign in with GitHub"))
    let csrf = try #require(SignInHarness.csrf(in: html))

    // The reader's searches go out with their token.
    let before = h.fake.calls.filter { $0.path == "/search/repositories" && $0.identity == "mona" }.count
    let fragment = try await h.get("/fragments/results?q=rust&after=0", jar)
    #expect(fragment.status.code == 200)
    #expect(fragment.headers["Cache-Control"] == "private, no-store")
    #expect(HTMLScan.cards(h.text(fragment)).count == 20)
    let after = h.fake.calls.filter { $0.path == "/search/repositories" && $0.identity == "mona" }.count
    #expect(after > before, "the reader's search went out as the reader")

    // Sign out: the session ends, the cookie goes, the token is revoked at GitHub.
    let out = try await h.request(
      .post, "/logout", jar, headers: ["Origin": h.publicURL, "Sec-Fetch-Site": "same-origin"],
      body: "csrf=\(csrf)&return_to=%2F%3Fq%3Dswift")
    #expect(out.status.code == 303)
    #expect(out.headers["Location"] == "/?q=swift")
    #expect(jar[h.sessionCookie] == nil)
    #expect(
      try await h.eventually { h.fake.tokens.allSatisfy { $0.revoked } }, "the token was revoked at GitHub")
    // The old cookie opens nothing any more.
    let replay = CookieJar()
    replay.set(h.sessionCookie, sessionID)
    let afterOut = try await h.get("/?q=swift", replay)
    #expect(h.text(afterOut).contains("Sign in with GitHub"))
    #expect(h.text(afterOut).contains("Your sign-in has ended"))
  }

  @Test func plainHTTPLoopbackCookiesHaveNoSecureAndNoPrefix() async throws {
    let h = try SignInHarness(publicURL: "http://127.0.0.1:8080")
    let jar = CookieJar()
    let response = try await h.signIn(jar, login: "mona")
    let session = try #require(
      response.headers.values(for: "Set-Cookie").first { $0.hasPrefix("reposcroll_session=") })
    #expect(!session.contains("Secure"))
    #expect(
      session.contains("; HttpOnly") && session.contains("; SameSite=Lax") && session.contains("; Path=/"))
    #expect(h.logs.all.contains { $0.contains("plain-http loopback") })
    #expect(h.text(try await h.get("/", jar)).contains("account-login"))
  }

  @Test func plainHTTPElsewhereRefusesToStartUnlessAllowed() throws {
    #expect(throws: RepoScrollApp.StartupError.self) {
      try SignInHarness(publicURL: "http://reposcroll.example")
    }
    let allowed = try SignInHarness(publicURL: "http://reposcroll.example") { $0.insecureCookies = true }
    #expect(allowed.logs.all.contains { $0.contains("--insecure-cookies") })
  }

  @Test func withoutAClientIDNothingChanges() async throws {
    let h = try SignInHarness(signIn: false)
    let page = h.text(try await h.get("/?q=swift"))
    #expect(!page.contains("Sign in"))
    #expect(!page.contains("account"))
    #expect(try await h.get("/login").status.code == 404)
    #expect(try await h.request(.post, "/logout").status.code == 404)
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
    #expect(fragment.status.code == 200)
    #expect(HTMLScan.cards(html).count == anonymousRows && anonymousRows == 20, "no row lost")
    #expect(html.contains("GitHub no longer accepts your sign-in"))
    #expect(jar[h.sessionCookie] == nil, "the cookie was cleared")
    #expect(h.store.dump.isEmpty, "the session was deleted")
    let next = h.text(try await h.get("/?q=go", jar))
    #expect(next.contains("Sign in with GitHub"))
    // On a full page, whole or streamed, the same: every row, and the notice.
    let other = CookieJar()
    try await h.signIn(other, login: "octo")
    h.fake.revokeAll(of: "octo")
    let page = h.text(try await h.get("/?q=language%3Ago", other))
    #expect(HTMLScan.cards(page).count == 20)
    #expect(page.contains("GitHub no longer accepts your sign-in"))
  }

  @Test func anUnreachableSessionStoreMeansAnonymousWithANoticeNever500() async throws {
    let (h, jar) = try SignInHarness.withJar()
    try await h.signIn(jar, login: "mona")
    h.store.setAvailable(false)
    let page = try await h.get("/?q=swift", jar)
    #expect(page.status.code == 200)
    #expect(h.text(page).contains("Sign-in is unavailable right now"))
    #expect(h.text(page).contains("Sign in with GitHub"))
    let fragment = try await h.get("/fragments/results?q=swift&after=20", jar)
    #expect(fragment.status.code == 200)
    #expect(HTMLScan.cards(h.text(fragment)).count == 20)
    #expect(h.text(fragment).contains("Sign-in is unavailable right now"))
    #expect(jar[h.sessionCookie] != nil, "an outage does not sign the reader out")
    h.store.setAvailable(true)
    #expect(h.text(try await h.get("/?q=swift", jar)).contains("account-login"))
  }

  @Test func theRateLimitNoticeSaysWhoseLimitItIs() async throws {
    let h = try SignInHarness()
    // Anonymous, on the site's spent budget: offered to go on with their own.
    let reset = Int(Date().timeIntervalSince1970) + 120
    _ = try await InProcessTransport.call(
      h.fake.double.handler,
      HTTPRequest(method: .post, target: "/_double/ratelimit?resource=search&remaining=0&reset=\(reset)"))
    let limited = h.text(try await h.get("/?q=language%3Apython"))
    #expect(limited.contains("GitHub’s rate limit was reached."))
    #expect(limited.contains("This site’s shared limit is spent."))
    #expect(
      limited.contains("<a href=\"/login?return_to=%2F%3Fq%3Dlanguage%253Apython\">Sign in with GitHub</a>"))
    // A signed-in reader on their own spent budget is told it is theirs.
    let jar = CookieJar()
    try await h.signIn(jar, login: "mona")
    h.fake.limit("mona")
    let mine = h.text(try await h.get("/?q=language%3Aruby", jar))
    #expect(mine.contains("Your GitHub rate limit was reached."))
    #expect(!mine.contains("This site’s shared limit is spent."))
  }

  @Test func starHistoriesGoOutAsTheReader() async throws {
    let (h, jar) = try SignInHarness.withJar()
    try await h.signIn(jar, login: "mona")
    let page = h.text(try await h.get("/?q=stars%3A%3E0&sort=stars", jar))
    let path = try #require(page.firstMatch(of: #/data-stargazers="(/fragments/stars/[^"]+)"/#)).1
    let response = try await h.get(String(path), jar)
    #expect(response.status.code == 200)
    #expect(response.headers["Cache-Control"] == "private, no-store")
    #expect(h.fake.calls.contains { $0.path.hasSuffix("/stargazers/history") && $0.identity == "mona" })
  }
}
