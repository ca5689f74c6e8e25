import Credentials
import CurlClient
import GitHubDouble
import HTTP
import TestSupport
import Testing

@testable import GitHub

/// `GitHubOAuth.refresh` and the lifetimes of an expiring grant: what it sends, what it accepts, and
/// a typed error for a refused or hostile answer; then for real, over loopback, against the double's
/// GitHub App.
@Suite("OAuth client: expiring tokens and their refresh", .timeLimit(.minutes(2)))
struct OAuthRefreshTests {
  static let access = "ghu_16C7e42F292c6912E7710c838347Ae178B4a"
  static let refresh = "ghr_1B4a2e77838347a7E420ce178F2E7c6912E169246c34E1ccbF66C46812d16D5B1A9Dc86A1498"
  typealias Client = OAuthClientTests

  static func answer(_ extra: String) -> String {
    "{\"access_token\":\"\(access)\",\"token_type\":\"bearer\",\"scope\":\"\"\(extra)}"
  }

  @Test func anAppsExchangeGivesTheLifetimesAndTheRefreshToken() async throws {
    let transport = FakeTransport { _ in
      Fixtures.response(
        Self.answer(
          ",\"expires_in\":28800,\"refresh_token\":\"\(Self.refresh)\",\"refresh_token_expires_in\":15897600")
      )
    }
    let grant = try await Client.oauth(transport).exchange(
      code: "c", verifier: "v", redirectURI: "https://a/cb")
    expectTrue(grant.accessToken == Self.access && grant.scopes.isEmpty)
    expectTrue(grant.expiresIn == 28_800 && grant.refreshToken == Self.refresh)
    expectEqual(grant.refreshTokenExpiresIn, 15_897_600)
    for text in [
      "\(grant)", String(reflecting: grant),
      {
        var s = ""; dump(grant, to: &s); return s
      }(),
    ] {
      expectTrue(!text.contains(Self.access) && !text.contains(Self.refresh))
    }
  }

  @Test func lifetimesAsStringsAsGitHubFirstAnnouncedThemAreReadToo() async throws {
    let transport = FakeTransport { _ in
      Fixtures.response(
        Self.answer(
          ",\"expires_in\":\"28800\",\"refresh_token\":\"\(Self.refresh)\",\"refresh_token_expires_in\":\"15811200\""
        ))
    }
    let grant = try await Client.oauth(transport).exchange(
      code: "c", verifier: "v", redirectURI: "https://a/cb")
    expectTrue(grant.expiresIn == 28_800 && grant.refreshTokenExpiresIn == 15_811_200)
  }

  @Test func aRefreshPostsItsGrantTypeAndTheRefreshToken() async throws {
    let transport = FakeTransport { _ in
      Fixtures.response(
        Self.answer(
          ",\"expires_in\":28800,\"refresh_token\":\"\(Self.refresh)\",\"refresh_token_expires_in\":15897600")
      )
    }
    let grant = try await Client.oauth(transport).refresh(refreshToken: "ghr_old")
    expectTrue(grant.accessToken == Self.access && grant.refreshToken == Self.refresh)
    let request = try #require(transport.requests.first)
    expectTrue(request.method == .post && request.url == "http://web.test/login/oauth/access_token")
    expectEqual(request.headers["Accept"], "application/json")
    expectEqual(
      Client.form(request),
      [
        "client_id": "Iv1.abc", "client_secret": Client.secret, "grant_type": "refresh_token",
        "refresh_token": "ghr_old",
      ])
  }

  @Test(
    "a refused or hostile refresh is typed, and never echoes a token",
    arguments: [
      (
        "{\"error\":\"bad_refresh_token\",\"error_description\":\"The refresh token passed is incorrect or expired.\"}",
        OAuthError.badRefreshToken
      ),
      ("{\"error\":\"incorrect_client_credentials\"}", .incorrectClientCredentials),
      ("{\"error\":\"unsupported_grant_type\"}", .hostile("unknown error code")),
      (answer(",\"expires_in\":-5"), .hostile("expires_in is not a positive number")),
      (answer(",\"expires_in\":\"soon\""), .hostile("expires_in is not a positive number")),
      (answer(",\"expires_in\":28800,\"refresh_token\":\"ghr_a b\""), .hostile("no usable refresh_token")),
      (answer(",\"expires_in\":28800,\"refresh_token\":\"\(access)\""), .hostile("no usable refresh_token")),
      (
        answer(",\"expires_in\":28800,\"refresh_token\":\"\(refresh)\""),
        .hostile("refresh_token_expires_in is not a positive number")
      ),
    ])
  func refusedOrHostile(body: String, expected: OAuthError) async {
    let transport = FakeTransport { _ in Fixtures.response(body) }
    await #expect(throws: expected) { try await Client.oauth(transport).refresh(refreshToken: "ghr_old") }
  }

  @Test func aHugeLifetimeSaturatesAndAMalformedRefreshTokenIsNeverSent() async throws {
    let transport = FakeTransport { _ in
      Fixtures.response(
        Self.answer(
          ",\"expires_in\":1e300,\"refresh_token\":\"\(Self.refresh)\",\"refresh_token_expires_in\":9e18"))
    }
    let grant = try await Client.oauth(transport).refresh(refreshToken: "ghr_old")
    expectTrue(grant.expiresIn == 10 * 366 * 86_400 && grant.refreshTokenExpiresIn == 10 * 366 * 86_400)
    await #expect(throws: OAuthError.badRefreshToken) {
      try await Client.oauth(transport).refresh(refreshToken: "ghr_\"injected")
    }
    expectEqual(transport.requests.count, 1)
  }

  @Test func againstTheDoublesGitHubAppARefreshRotatesAndAReplayIsRefused() async throws {
    try await GitHubDouble.withSmallExactOnLoopback { double, base, http in
      let oauth = GitHubDouble.oauth(
        base, http, clientID: DoubleConfiguration.demoAppClientID,
        clientSecret: DoubleConfiguration.demoAppClientSecret)
      let first = try #require(double.grant(login: "looper"))
      let refreshed = try await oauth.refresh(refreshToken: try #require(first.refreshToken))
      expectTrue(refreshed.accessToken.hasPrefix("ghu_") && refreshed.accessToken != first.accessToken)
      expectTrue(refreshed.expiresIn == 28_800 && refreshed.refreshTokenExpiresIn == 15_897_600)
      expectEqual(refreshed.refreshToken?.hasPrefix("ghr_"), true)
      let user = try await oauth.user(token: refreshed.accessToken)
      expectTrue(user.login == "looper" && user.scopes.isEmpty)
      await #expect(throws: OAuthError.unauthorized) { try await oauth.user(token: first.accessToken) }
      await #expect(throws: OAuthError.badRefreshToken) {
        try await oauth.refresh(refreshToken: try #require(first.refreshToken))
      }
      try await oauth.revoke(token: refreshed.accessToken)
      expectEqual(double.liveTokenCount(login: "looper"), 0)
    }
  }
}
