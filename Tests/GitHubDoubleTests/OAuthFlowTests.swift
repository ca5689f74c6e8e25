import Encodings
import GitHubDouble
import HTTP
import HTTPServer
import TestSupport
import Testing

/// The double's OAuth web flow, as GitHub documents it, driven through its handler without a browser.
@Suite("OAuth web flow", .timeLimit(.minutes(3)))
struct OAuthFlowTests {
  static let client = DoubleConfiguration.demoClientID
  static let secret = DoubleConfiguration.demoClientSecret
  static let callback = "http://127.0.0.1:8080/login/callback"
  static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
  static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

  static func send(
    _ double: GitHubDouble, _ method: HTTPMethod, _ target: String, headers: HTTPHeaders = [:],
    form: [(String, String)]? = nil,
    body: String? = nil
  ) async throws -> HTTPResponse {
    var h = headers
    var bytes: [UInt8] = []
    if let form {
      h.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
      bytes = Array(URLEncoding.formatQuery(form).utf8)
    } else if let body {
      bytes = Array(body.utf8)
    }
    if h["Host"] == nil { h.add(name: "Host", value: "double.test") }
    var response = try await double.handler(
      HTTPRequest(method: method, target: target, headers: h, body: bytes),
      RequestContext(requestID: "T1", parameters: [:], remoteAddress: "127.0.0.1:5000"))
    if case .stream(let stream) = response.body {
      var all: [UInt8] = []
      for try await chunk in stream { all += chunk }
      response.body = .bytes(all)
    }
    return response
  }

  /// The query items of a `Location`.
  static func location(_ response: HTTPResponse) -> [String: String] {
    let value = response.headers["Location"] ?? ""
    var items: [String: String] = [:]
    guard let q = value.firstIndex(of: "?") else { return items }
    for item in URLEncoding.parseQuery(value[value.index(after: q)...]) { items[item.name] = item.value }
    return items
  }

  static let authorizeFields: [(String, String)] = [
    ("client_id", client), ("redirect_uri", callback), ("state", "st4te"), ("code_challenge", challenge),
    ("code_challenge_method", "S256"),
  ]

  /// Posts the consent form as `login` and returns the code.
  static func authorize(_ double: GitHubDouble, login: String, private: Bool = false) async throws -> String {
    var form = authorizeFields + [("login", login), ("action", "authorize")]
    if `private` { form.append(("private", "on")) }
    let response = try await send(double, .post, "/login/oauth/authorize", form: form)
    expectEqual(response.status.code, 302)
    expectEqual(location(response)["state"], "st4te")
    return try #require(location(response)["code"])
  }

  /// Exchanges a code; the JSON answer.
  static func exchange(
    _ double: GitHubDouble, code: String, verifier: String? = verifier, secret: String = secret,
    redirect: String = callback, client: String = client
  ) async throws -> SchemaJSON {
    var form = [("client_id", client), ("client_secret", secret), ("code", code), ("redirect_uri", redirect)]
    if let verifier { form.append(("code_verifier", verifier)) }
    let response = try await send(
      double, .post, "/login/oauth/access_token", headers: ["Accept": "application/json"], form: form)
    expectEqual(response.status.code, 200)
    return try response.json()
  }

  static func signedIn(_ double: GitHubDouble, login: String, private: Bool = false) async throws -> String {
    let code = try await authorize(double, login: login, private: `private`)
    return try #require(try await exchange(double, code: code)["access_token"]?.string)
  }

  static func privateOwner(_ double: GitHubDouble) throws -> String {
    let repo = try #require(double.catalog.privateRepositories.first)
    return double.catalog.owners[repo.ownerIndex].login
  }

  @Test func theAuthorizePageIsAFormWithLoginPrivateAuthorizeAndCancelAndEscapesWhatItEchoes() async throws {
    let (double, _) = Fixtures.clocked()
    let query = URLEncoding.formatQuery(
      [("client_id", Self.client), ("redirect_uri", Self.callback), ("state", "\"><script>x</script>")])
    let page = try await Self.send(double, .get, "/login/oauth/authorize?" + query)
    expectEqual(page.status.code, 200)
    expectEqual(page.headers["Content-Type"], "text/html; charset=utf-8")
    let html = page.text
    expectTrue(
      html.contains("name=\"login\"") && html.contains("type=\"checkbox\" id=\"private\" name=\"private\""))
    expectTrue(html.contains("value=\"authorize\"") && html.contains("value=\"cancel\""))
    expectTrue(!html.contains("<script>") && html.contains("&quot;&gt;&lt;script&gt;"))
    expectTrue(html.contains(try Self.privateOwner(double)))
  }

  @Test func anUnknownClientOrABadRedirectOrChallengeIsRefused() async throws {
    let (double, _) = Fixtures.clocked { $0.oauthCallbacks = [Self.client: "http://127.0.0.1:8080/login"] }
    let unknown = try await Self.send(
      double, .get, "/login/oauth/authorize?client_id=nope&redirect_uri=http://a/")
    expectEqual(unknown.status.code, 404)
    let elsewhere = try await Self.send(
      double, .get, "/login/oauth/authorize?client_id=\(Self.client)&redirect_uri=http://evil.test/cb&state=s"
    )
    expectEqual(elsewhere.status.code, 302)
    expectEqual(elsewhere.headers["Location"]?.hasPrefix("http://127.0.0.1:8080/login?"), true)
    expectTrue(
      Self.location(elsewhere)["error"] == "redirect_uri_mismatch" && Self.location(elsewhere)["state"] == "s"
    )
    let plain = try await Self.send(
      double, .get,
      "/login/oauth/authorize?client_id=\(Self.client)&redirect_uri=\(Self.callback)&code_challenge=abc&code_challenge_method=plain"
    )
    expectEqual(Self.location(plain)["error"], "invalid_request")
    let below = try await Self.send(
      double, .get,
      "/login/oauth/authorize?client_id=\(Self.client)&redirect_uri=http://127.0.0.1:8080/login/callback")
    expectEqual(below.status.code, 200)
  }

  @Test func cancelRedirectsWithAccessDeniedAndTheState() async throws {
    let (double, _) = Fixtures.clocked()
    let response = try await Self.send(
      double, .post, "/login/oauth/authorize",
      form: Self.authorizeFields + [("login", "someone"), ("action", "cancel")])
    expectEqual(response.status.code, 302)
    expectEqual(response.headers["Location"]?.hasPrefix(Self.callback + "?"), true)
    let items = Self.location(response)
    expectTrue(items["error"] == "access_denied" && items["state"] == "st4te" && items["code"] == nil)
    expectEqual(items["error_description"]?.isEmpty, false)
  }

  @Test func anOrganisationOrAMalformedLoginCannotSignIn() async throws {
    let (double, _) = Fixtures.clocked()
    let org = try #require(double.catalog.owners.first { $0.isOrganization })
    for login in [org.login, "-bad", "a--b", "<x>", ""] {
      let response = try await Self.send(
        double, .post, "/login/oauth/authorize",
        form: Self.authorizeFields + [("login", login), ("action", "authorize")])
      expectEqual(response.status.code, 422)
      expectEqual(response.headers["Location"], nil)
    }
  }

  @Test func aCodeBuysOneTokenOnceWithinTenMinutes() async throws {
    let (double, clock) = Fixtures.clocked()
    let code = try await Self.authorize(double, login: "reader-one", private: true)
    let answer = try await Self.exchange(double, code: code)
    let token = try #require(answer["access_token"]?.string)
    expectTrue(token.hasPrefix("gho_") && token.utf8.count == 40)
    expectTrue(token.dropFirst(4).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
    expectTrue(answer["token_type"]?.string == "bearer" && answer["scope"]?.string == "repo")
    // Replayed.
    let replay = try await Self.exchange(double, code: code)
    expectTrue(replay["error"]?.string == "bad_verification_code" && replay["access_token"] == nil)
    expectEqual(replay["error_description"]?.string, "The code passed is incorrect or expired.")
    // Expired: 10 minutes is too late, just under is fine.
    let late = try await Self.authorize(double, login: "reader-one")
    let inTime = try await Self.authorize(double, login: "reader-one")
    clock.advance(599)
    expectTrue(try await Self.exchange(double, code: inTime)["access_token"]?.string != nil)
    clock.advance(1)
    try await expectEqual(Self.exchange(double, code: late)["error"]?.string, "bad_verification_code")
    try await expectEqual(Self.exchange(double, code: "0000000000")["error"]?.string, "bad_verification_code")
  }

  @Test func theClientTheRedirectAndTheVerifierAreChecked() async throws {
    let (double, _) = Fixtures.clocked()
    let cases: [(String?, String, String, String)] = [
      (String(repeating: "x", count: 43), Self.secret, Self.callback, "invalid_grant"),
      (nil, Self.secret, Self.callback, "invalid_grant"),
      ("short", Self.secret, Self.callback, "invalid_grant"),
      (Self.verifier, "wrong-secret", Self.callback, "incorrect_client_credentials"),
      (Self.verifier, Self.secret, Self.callback + "/elsewhere", "redirect_uri_mismatch"),
    ]
    for (verifier, secret, redirect, error) in cases {
      let code = try await Self.authorize(double, login: "checker")
      let answer = try await Self.exchange(
        double, code: code, verifier: verifier, secret: secret, redirect: redirect)
      expectEqual(answer["error"]?.string, error)
      expectEqual(answer["access_token"], nil)
      // A code that failed a check is used up: the right values do not rescue it.
      if error != "incorrect_client_credentials" {
        try await expectEqual(Self.exchange(double, code: code)["error"]?.string, "bad_verification_code")
      }
    }
    let code = try await Self.authorize(double, login: "checker")
    try await expectEqual(
      Self.exchange(double, code: code, client: "Iv1.other")["error"]?.string, "incorrect_client_credentials")
  }

  @Test func withoutJSONTheAnswerIsFormEncodedAsGitHubDoes() async throws {
    let (double, _) = Fixtures.clocked()
    let code = try await Self.authorize(double, login: "former")
    let response = try await Self.send(
      double, .post, "/login/oauth/access_token",
      form: [
        ("client_id", Self.client), ("client_secret", Self.secret), ("code", code),
        ("code_verifier", Self.verifier),
      ])
    expectEqual(response.headers["Content-Type"]?.hasPrefix("application/x-www-form-urlencoded"), true)
    let items = URLEncoding.parseQuery(response.text)
    expectTrue(items.first?.name == "access_token" && items.first?.value.hasPrefix("gho_") == true)
  }

  @Test func userAnswersForALiveTokenOnlyAndCarriesItsScopes() async throws {
    let (double, _) = Fixtures.clocked()
    let owner = try Self.privateOwner(double)
    let token = try await Self.signedIn(double, login: owner.uppercased(), private: true)
    let user = try await Self.send(double, .get, "/user", headers: ["Authorization": "Bearer \(token)"])
    expectEqual(user.status.code, 200)
    expectEqual(user.headers["X-OAuth-Scopes"], "repo")
    let json = try user.json()
    expectEqual(json["login"]?.string, owner)
    let id = try #require(double.catalog.owners.first { $0.login == owner }?.id)
    expectEqual(json["id"]?.int, id)
    try await expectEqual(Self.send(double, .get, "/user").status.code, 401)
    try await expectEqual(
      Self.send(double, .get, "/user", headers: ["Authorization": "Bearer gho_madeup"]).status.code, 401)
    // Revoked from the control API (as when the user revokes the app): 401 everywhere.
    expectEqual(double.revokeTokens(login: owner), 1)
    let after = try await Self.send(double, .get, "/user", headers: ["Authorization": "token \(token)"])
    expectEqual(after.status.code, 401)
    let search = try await Self.send(
      double, .get, "/search/repositories?q=a", headers: ["Authorization": "Bearer \(token)"])
    expectEqual(search.status.code, 401)
    try expectEqual(search.json()["message"]?.string, "Bad credentials")
  }

  @Test func aScopeGrantedOnceComesWithLaterTokensOfTheSameApp() async throws {
    let (double, _) = Fixtures.clocked()
    _ = try await Self.signedIn(double, login: "granter", private: true)
    let code = try await Self.authorize(double, login: "granter", private: false)
    try await expectEqual(Self.exchange(double, code: code)["scope"]?.string, "repo")
    let other = try await Self.authorize(double, login: "someone-else")
    try await expectEqual(Self.exchange(double, code: other)["scope"]?.string, "")
  }

  @Test func revocationNeedsTheAppsBasicCredentials() async throws {
    let (double, _) = Fixtures.clocked()
    let token = try await Self.signedIn(double, login: "leaver")
    let path = "/applications/\(Self.client)/token"
    let body = "{\"access_token\":\"\(token)\"}"
    let good = "Basic " + Base64.encode(Array("\(Self.client):\(Self.secret)".utf8))
    let bad = "Basic " + Base64.encode(Array("\(Self.client):nope".utf8))
    try await expectEqual(Self.send(double, .delete, path, body: body).status.code, 401)
    try await expectEqual(
      Self.send(double, .delete, path, headers: ["Authorization": bad], body: body).status.code, 404)
    try await expectEqual(
      Self.send(double, .delete, path, headers: ["Authorization": good], body: "{}").status.code, 422)
    expectEqual(double.liveTokenCount(login: "leaver"), 1)
    try await expectEqual(
      Self.send(double, .delete, path, headers: ["Authorization": good], body: body).status.code, 204)
    expectEqual(double.liveTokenCount(login: "leaver"), 0)
    try await expectEqual(
      Self.send(double, .delete, path, headers: ["Authorization": good], body: body).status.code, 404)
    try await expectEqual(
      Self.send(double, .get, "/user", headers: ["Authorization": "Bearer \(token)"]).status.code, 401)
  }

  @Test func theEleventhTokenOfAUserAndAppRevokesTheOldest() async throws {
    let (double, _) = Fixtures.clocked()
    var tokens: [String] = []
    for _ in 0..<11 { tokens.append(try #require(double.signIn(login: "many", seesPrivate: false))) }
    expectEqual(double.liveTokenCount(login: "many"), 10)
    try await expectEqual(
      Self.send(double, .get, "/user", headers: ["Authorization": "Bearer \(tokens[0])"]).status
        .code, 401)
    try await expectEqual(
      Self.send(double, .get, "/user", headers: ["Authorization": "Bearer \(tokens[1])"]).status
        .code, 200)
    expectEqual(Set(tokens).count, 11)
  }

  @Test func theControlAPIRevokesExpiresAndCounts() async throws {
    let (double, _) = Fixtures.clocked()
    _ = try await Self.signedIn(double, login: "ctl")
    let code = try await Self.authorize(double, login: "ctl")
    try await expectEqual(Self.send(double, .get, "/_double/oauth/tokens?login=ctl").json()["live"]?.int, 1)
    try await expectEqual(Self.send(double, .post, "/_double/oauth/expire-codes").status.code, 200)
    try await expectEqual(Self.exchange(double, code: code)["error"]?.string, "bad_verification_code")
    try await expectEqual(
      Self.send(double, .post, "/_double/oauth/revoke?login=ctl").json()["revoked"]?.int, 1)
    expectEqual(double.liveTokenCount(login: "ctl"), 0)
    try await expectEqual(Self.send(double, .post, "/_double/oauth/revoke").status.code, 400)
  }
}
