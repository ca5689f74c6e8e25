import Encodings
import GitHubDouble
import HTTP
import HTTPServer
import TestSupport
import Testing

/// The double as a GitHub App with expiring user tokens: `ghu_` tokens that expire after 8 hours on
/// the token clock, single-use `ghr_` refresh tokens that rotate both, no scopes, GitHub's refresh
/// errors, and refreshes in the request log.
@Suite("GitHub App tokens", .timeLimit(.minutes(3)))
struct AppTokenTests {
  static let app = DoubleConfiguration.demoAppClientID
  static let appSecret = DoubleConfiguration.demoAppClientSecret
  typealias Flow = OAuthFlowTests

  /// Authorizes `login` for the demo GitHub App and exchanges the code; the JSON answer.
  static func signIn(_ double: GitHubDouble, login: String) async throws -> SchemaJSON {
    let form =
      [
        ("client_id", app), ("redirect_uri", Flow.callback), ("state", "st4te"),
        ("code_challenge", Flow.challenge), ("code_challenge_method", "S256"),
      ] + [("login", login), ("action", "authorize"), ("private", "on")]
    let authorized = try await Flow.send(double, .post, "/login/oauth/authorize", form: form)
    let code = try #require(Flow.location(authorized)["code"])
    return try await Flow.exchange(double, code: code, secret: appSecret, client: app)
  }

  /// `POST /login/oauth/access_token` with `grant_type=refresh_token`; the JSON answer.
  static func refresh(
    _ double: GitHubDouble, _ token: String, secret: String = appSecret, client: String = app,
    grantType: String = "refresh_token"
  ) async throws -> SchemaJSON {
    let form = [
      ("client_id", client), ("client_secret", secret), ("grant_type", grantType), ("refresh_token", token),
    ]
    let response = try await Flow.send(
      double, .post, "/login/oauth/access_token", headers: ["Accept": "application/json"], form: form)
    expectEqual(response.status.code, 200)
    expectEqual(response.headers["X-Double-Flow-Error"], nil)
    return try response.json()
  }

  static func user(_ double: GitHubDouble, _ token: String) async throws -> HTTPResponse {
    try await Flow.send(double, .get, "/user", headers: ["Authorization": "Bearer \(token)"])
  }

  static func isAlphanumeric(_ text: Substring) -> Bool {
    text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
  }

  @Test func anAppTokenExpiresInEightHoursComesWithARefreshTokenAndCarriesNoScopes() async throws {
    let (double, _) = Fixtures.clocked()
    let answer = try await Self.signIn(double, login: "app-reader")
    let token = try #require(answer["access_token"]?.string)
    let refresh = try #require(answer["refresh_token"]?.string)
    expectTrue(token.hasPrefix("ghu_") && token.utf8.count == 40 && Self.isAlphanumeric(token.dropFirst(4)))
    expectTrue(
      refresh.hasPrefix("ghr_") && refresh.utf8.count == 80 && Self.isAlphanumeric(refresh.dropFirst(4)))
    expectTrue(answer["expires_in"]?.int == 28_800 && answer["refresh_token_expires_in"]?.int == 15_897_600)
    // The `private` box means nothing to a GitHub App: no scope is granted.
    expectTrue(answer["scope"]?.string == "" && answer["token_type"]?.string == "bearer")
    let user = try await Self.user(double, token)
    expectTrue(user.status.code == 200 && user.headers["X-OAuth-Scopes"] == nil)
    try expectEqual(user.json()["login"]?.string, "app-reader")
    let search = try await Flow.send(
      double, .get, "/search/repositories?q=a", headers: ["Authorization": "Bearer \(token)"])
    expectTrue(search.status.code == 200 && search.headers["X-OAuth-Scopes"] == nil)
    // The OAuth app beside it still sends its scopes.
    let oauth = try #require(double.signIn(login: "app-reader", seesPrivate: true))
    try await expectEqual(Self.user(double, oauth).headers["X-OAuth-Scopes"], "repo")
  }

  @Test func theConsentFormOfAGitHubAppOffersNoScope() async throws {
    let (double, _) = Fixtures.clocked()
    let query = URLEncoding.formatQuery([("client_id", Self.app), ("redirect_uri", Flow.callback)])
    let page = try await Flow.send(double, .get, "/login/oauth/authorize?" + query)
    expectEqual(page.status.code, 200)
    expectTrue(!page.text.contains("name=\"private\"") && page.text.contains("GitHub App"))
  }

  @Test func aRefreshRotatesBothTokensAtOnceAndARefreshTokenWorksOnce() async throws {
    let (double, _) = Fixtures.clocked()
    let first = try await Self.signIn(double, login: "rotator")
    let token = try #require(first["access_token"]?.string)
    let refresh = try #require(first["refresh_token"]?.string)
    let second = try await Self.refresh(double, refresh)
    let newToken = try #require(second["access_token"]?.string)
    let newRefresh = try #require(second["refresh_token"]?.string)
    expectTrue(
      newToken.hasPrefix("ghu_") && newToken != token && newRefresh.hasPrefix("ghr_") && newRefresh != refresh
    )
    expectTrue(second["expires_in"]?.int == 28_800 && second["refresh_token_expires_in"]?.int == 15_897_600)
    expectTrue(second["scope"]?.string == "" && second["token_type"]?.string == "bearer")
    // The old pair stopped working at once; the new one works.
    try await expectEqual(Self.user(double, token).status.code, 401)
    try await expectEqual(Self.user(double, newToken).status.code, 200)
    let replay = try await Self.refresh(double, refresh)
    expectTrue(replay["error"]?.string == "bad_refresh_token" && replay["access_token"] == nil)
    expectEqual(replay["error_description"]?.string, "The refresh token passed is incorrect or expired.")
    expectEqual(replay["error_uri"]?.string?.hasPrefix("https://docs.github.com/"), true)
    // A replay costs the attacker nothing more, and the reader's new pair keeps working.
    try await expectEqual(Self.user(double, newToken).status.code, 200)
    expectEqual(double.liveTokenCount(login: "rotator"), 1)
    // The log shows both refreshes, under the reader, the refused one with its error.
    let refreshes = double.requestLog().filter { $0.endpoint == .tokenRefresh }
    expectEqual(refreshes.count, 2)
    expectTrue(refreshes.allSatisfy { $0.identity == "rotator" && $0.status == 200 })
    expectEqual(refreshes.map(\.error), [nil, "bad_refresh_token"])
    expectEqual(double.counters().calls(.tokenRefresh), 2)
    let logged = try await Flow.send(double, .get, "/_double/requests?endpoint=token_refresh").text
    expectTrue(
      logged.contains("\"error\":\"bad_refresh_token\"") && logged.contains("\"identity\":\"rotator\""))
  }

  @Test func theTokenClockExpiresTheAccessTokenAfterEightHoursAndTheRefreshTokenAfterSixMonths() async throws
  {
    let (double, _) = Fixtures.clocked()
    let answer = try await Self.signIn(double, login: "sleeper")
    var token = try #require(answer["access_token"]?.string)
    var refresh = try #require(answer["refresh_token"]?.string)
    double.advanceTokenClock(by: 28_799)
    try await expectEqual(Self.user(double, token).status.code, 200)
    double.advanceTokenClock(by: 1)
    let expired = try await Self.user(double, token)
    expectEqual(expired.status.code, 401)
    try expectEqual(expired.json()["message"]?.string, "Bad credentials")
    let search = try await Flow.send(
      double, .get, "/search/repositories?q=a", headers: ["Authorization": "Bearer \(token)"])
    expectEqual(search.status.code, 401)
    // Expired but renewable: it still counts as a live grant until refreshed or revoked.
    expectEqual(double.liveTokenCount(login: "sleeper"), 1)
    expectEqual(double.requestLog().last?.identity, "sleeper")
    let renewed = try await Self.refresh(double, refresh)
    token = try #require(renewed["access_token"]?.string)
    refresh = try #require(renewed["refresh_token"]?.string)
    try await expectEqual(Self.user(double, token).status.code, 200)
    // Six months later the refresh token is refused too, and nothing of the grant is left.
    double.advanceTokenClock(by: 15_897_600)
    try await expectEqual(Self.refresh(double, refresh)["error"]?.string, "bad_refresh_token")
    expectEqual(double.liveTokenCount(login: "sleeper"), 0)
  }

  @Test func refreshErrorsAreGitHubsJSON() async throws {
    let (double, _) = Fixtures.clocked()
    let refresh = try #require(try await Self.signIn(double, login: "erring")["refresh_token"]?.string)
    let wrongSecret = try await Self.refresh(double, refresh, secret: "nope")
    expectEqual(wrongSecret["error"]?.string, "incorrect_client_credentials")
    let grant = try await Self.refresh(double, refresh, grantType: "password")
    expectEqual(grant["error"]?.string, "unsupported_grant_type")
    expectTrue(grant["error_description"]?.string?.isEmpty == false && grant["error_uri"]?.string != nil)
    // Another app cannot use it; a made-up one is refused; none of these spent it.
    let other = try await Self.refresh(
      double, refresh, secret: DoubleConfiguration.demoClientSecret, client: DoubleConfiguration.demoClientID)
    expectEqual(other["error"]?.string, "bad_refresh_token")
    try await expectEqual(
      Self.refresh(double, "ghr_" + String(repeating: "a", count: 76))["error"]?.string, "bad_refresh_token")
    try await expectEqual(Self.refresh(double, refresh)["access_token"]?.string?.hasPrefix("ghu_"), true)
    // Only `grant_type=refresh_token` is a refresh; another grant type is logged with the exchanges.
    let log = double.requestLog().filter { $0.endpoint == .tokenRefresh }.map(\.error)
    expectEqual(log, ["incorrect_client_credentials", "bad_refresh_token", "bad_refresh_token", nil])
    expectEqual(double.requestLog().last { $0.endpoint == .oauth }?.error, "unsupported_grant_type")
    expectEqual(double.requestLog().filter { $0.endpoint == .tokenRefresh }.last?.identity, "erring")
  }

  @Test func anOAuthAppsTokenNeitherExpiresNorRefreshes() async throws {
    let (double, _) = Fixtures.clocked()
    let code = try await Flow.authorize(double, login: "classic")
    let answer = try await Flow.exchange(double, code: code)
    let token = try #require(answer["access_token"]?.string)
    expectTrue(token.hasPrefix("gho_") && answer["refresh_token"] == nil && answer["expires_in"] == nil)
    double.advanceTokenClock(by: 365 * 86_400)
    try await expectEqual(Self.user(double, token).status.code, 200)
    try await expectEqual(Self.refresh(double, token)["error"]?.string, "bad_refresh_token")
  }

  @Test func revokingAnExpiredAppTokenEndsItsRefreshTokenToo() async throws {
    let (double, _) = Fixtures.clocked()
    let answer = try await Self.signIn(double, login: "leaving")
    let token = try #require(answer["access_token"]?.string)
    let refresh = try #require(answer["refresh_token"]?.string)
    double.advanceTokenClock(by: 28_800)
    let basic = "Basic " + Base64.encode(Array("\(Self.app):\(Self.appSecret)".utf8))
    let revoked = try await Flow.send(
      double, .delete, "/applications/\(Self.app)/token", headers: ["Authorization": basic],
      body: "{\"access_token\":\"\(token)\"}")
    expectEqual(revoked.status.code, 204)
    expectEqual(double.liveTokenCount(login: "leaving"), 0)
    try await expectEqual(Self.refresh(double, refresh)["error"]?.string, "bad_refresh_token")
  }

  @Test func theFormEncodedAnswerCarriesTheLifetimesToo() async throws {
    let (double, _) = Fixtures.clocked()
    let refresh = try #require(double.grant(login: "former")?.refreshToken)
    let response = try await Flow.send(
      double, .post, "/login/oauth/access_token",
      form: [
        ("client_id", Self.app), ("client_secret", Self.appSecret), ("grant_type", "refresh_token"),
        ("refresh_token", refresh),
      ])
    let items = Dictionary(
      uniqueKeysWithValues: URLEncoding.parseQuery(response.text).map { ($0.name, $0.value) })
    expectTrue(items["expires_in"] == "28800" && items["refresh_token_expires_in"] == "15897600")
    expectTrue(
      items["access_token"]?.hasPrefix("ghu_") == true && items["refresh_token"]?.hasPrefix("ghr_") == true)
  }

  @Test func theControlAPIMovesTheTokenClock() async throws {
    let (double, _) = Fixtures.clocked()
    let grant = try #require(double.grant(login: "ctl-app"))
    expectTrue(grant.expiresIn == 28_800 && grant.refreshTokenExpiresIn == 15_897_600)
    expectTrue(!grant.description.contains(grant.accessToken))
    let moved = try await Flow.send(double, .post, "/_double/oauth/advance?seconds=28800")
    expectEqual(moved.status.code, 200)
    try expectEqual(moved.json()["token_clock_offset"]?.int, 28_800)
    try await expectEqual(Self.user(double, grant.accessToken).status.code, 401)
    for bad in ["", "?seconds=-1", "?seconds=x", "?seconds=400000001"] {
      try await expectEqual(Flow.send(double, .post, "/_double/oauth/advance" + bad).status.code, 400)
    }
  }
}
