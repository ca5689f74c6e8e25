import Credentials
import CurlClient
import Encodings
import HTTP
import TestSupport
import Testing

@testable import GitHub

/// `GitHubOAuth` against scripted answers: the requests it sends, and a typed error for every way
/// GitHub or the network can fail or lie.
@Suite("OAuth client: requests and every failure typed", .timeLimit(.minutes(2)))
struct OAuthClientTests {
  static let secret = "s3cr3t-client-secret-value"
  static let token = "gho_16C7e42F292c6912E7710c838347Ae178B4a"

  static func oauth(_ transport: FakeTransport) -> GitHubOAuth {
    var configuration = GitHubOAuthConfiguration(clientID: "Iv1.abc", clientSecret: secret)
    configuration.webBase = "http://web.test/"
    configuration.apiBase = "http://api.test"
    return GitHubOAuth(configuration: configuration, transport: transport)
  }

  static func form(_ request: ClientRequest) -> [String: String] {
    var fields: [String: String] = [:]
    for item in URLEncoding.parseQuery(String(decoding: request.body, as: UTF8.self)) {
      fields[item.name] = item.value
    }
    return fields
  }

  @Test func theAuthorizeURLAsksForNoScopeWithAnS256Challenge() throws {
    let oauth = Self.oauth(FakeTransport { _ in Fixtures.response("{}") })
    let challenge = PKCE.challenge(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
    expectEqual(challenge, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    let url = oauth.authorizeURL(
      redirectURI: "https://app.test/login/callback", state: "st&te", codeChallenge: challenge)
    expectTrue(url.hasPrefix("http://web.test/login/oauth/authorize?"))
    let query = URLEncoding.parseQuery(url.split(separator: "?", maxSplits: 1)[1])
    expectEqual(
      query.map(\.name), ["client_id", "redirect_uri", "state", "code_challenge", "code_challenge_method"])
    expectEqual(
      query.map(\.value), ["Iv1.abc", "https://app.test/login/callback", "st&te", challenge, "S256"])
  }

  @Test func anExchangePostsTheFormAndReadsTheGrant() async throws {
    let transport = FakeTransport { _ in
      Fixtures.response(
        "{\"access_token\":\"\(Self.token)\",\"token_type\":\"bearer\",\"scope\":\"repo,gist\"}")
    }
    let grant = try await Self.oauth(transport).exchange(
      code: "c0de", verifier: "v3rifier", redirectURI: "https://app.test/cb")
    expectTrue(grant.accessToken == Self.token && grant.scopes == ["repo", "gist"])
    expectTrue(!"\(grant)".contains(Self.token))
    let request = try #require(transport.requests.first)
    expectTrue(request.method == .post && request.url == "http://web.test/login/oauth/access_token")
    expectEqual(request.headers["Accept"], "application/json")
    expectEqual(request.headers["Content-Type"], "application/x-www-form-urlencoded")
    expectTrue(request.timeout != nil && request.maxResponseBytes == GitHubOAuth.maxResponseBytes)
    expectEqual(
      Self.form(request),
      [
        "client_id": "Iv1.abc", "client_secret": Self.secret, "code": "c0de",
        "redirect_uri": "https://app.test/cb",
        "code_verifier": "v3rifier",
      ])
  }

  @Test(
    "GitHub's error JSON (status 200) becomes its own case",
    arguments: [
      ("bad_verification_code", OAuthError.badVerificationCode("The code passed is incorrect or expired.")),
      ("incorrect_client_credentials", .incorrectClientCredentials),
      ("redirect_uri_mismatch", .redirectURIMismatch),
      ("invalid_grant", .badVerifier), ("access_denied", .accessDenied),
      ("something_new", .hostile("unknown error code")),
      ("unverified_user_email", .unavailable("the GitHub account has no verified email address")),
    ])
  func errorJSON(code: String, expected: OAuthError) async {
    let transport = FakeTransport { _ in
      Fixtures.response(
        "{\"error\":\"\(code)\",\"error_description\":\"The code passed is incorrect or expired.\",\"error_uri\":\"/x\"}"
      )
    }
    await #expect(throws: expected) {
      try await Self.oauth(transport).exchange(
        code: "0f1e2d3c4b5a69788796", verifier: String(repeating: "v", count: 43),
        redirectURI: "https://app.test/cb")
    }
  }

  @Test func anErrorDescriptionEchoingSecretsIsRedactedAndCleaned() async {
    let transport = FakeTransport { _ in
      Fixtures.response(
        "{\"error\":\"bad_verification_code\",\"error_description\":\"\(Self.secret) code=c0de verifier=v3rifier\\u0007\"}"
      )
    }
    do {
      _ = try await Self.oauth(transport).exchange(
        code: "c0de", verifier: "v3rifier", redirectURI: "https://a/cb")
      Issue.record("no error")
    } catch {
      let text = error.description
      expectTrue(!text.contains(Self.secret) && !text.contains("c0de") && !text.contains("v3rifier"))
      expectTrue(!text.unicodeScalars.contains { $0.value < 0x20 })
    }
  }

  @Test(
    "a transport failure or an unusable answer is typed",
    arguments: [
      (ClientError.timedOut, OAuthError.unavailable("GitHub did not answer in time")),
      (.cannotConnect("refused"), .unavailable("GitHub could not be reached")),
      (.tooLarge(limit: 65536), .hostile("answer larger than 65536 bytes")),
    ])
  func transportFailures(error: ClientError, expected: OAuthError) async {
    let transport = FakeTransport { _ in throw error }
    await #expect(throws: expected) {
      try await Self.oauth(transport).exchange(code: "c", verifier: "v", redirectURI: "https://a/cb")
    }
    await #expect(throws: expected) { try await Self.oauth(transport).user(token: Self.token) }
    await #expect(throws: expected) { try await Self.oauth(transport).revoke(token: Self.token) }
  }

  @Test(
    "hostile or failing exchange answers never trap and never grant",
    arguments: [
      (200, "<html>hi</html>", OAuthError.hostile("not the JSON GitHub documents")),
      (200, "{\"access_token\":5}", .hostile("not the JSON GitHub documents")),
      (200, "[1,2]", .hostile("not the JSON GitHub documents")),
      (200, "{}", .hostile("no usable access_token in the answer")),
      (200, "{\"access_token\":\"gho_a\\nInjected: x\"}", .hostile("no usable access_token in the answer")),
      (
        200, "{\"access_token\":\"" + String(repeating: "a", count: 300) + "\"}",
        .hostile("no usable access_token in the answer")
      ),
      (200, "{\"access_token\":\"gho_abc\",\"token_type\":\"mac\"}", .hostile("token_type is not bearer")),
      (502, "bad gateway", .unavailable("GitHub answered 502")),
      (503, "", .unavailable("GitHub answered 503")),
      (302, "", .hostile("unexpected status 302")),
      (404, "{}", .hostile("unexpected status 404")),
    ])
  func hostileExchanges(status: Int, body: String, expected: OAuthError) async {
    let transport = FakeTransport { _ in Fixtures.response(body, status: status) }
    await #expect(throws: expected) {
      try await Self.oauth(transport).exchange(code: "c", verifier: "v", redirectURI: "https://a/cb")
    }
  }

  @Test func aBodyOverTheBoundIsRefusedEvenIfTheTransportDeliversIt() async {
    let huge = "{\"access_token\":\"gho_a\",\"pad\":\"" + String(repeating: "x", count: 70_000) + "\"}"
    await #expect(throws: OAuthError.hostile("answer too large")) {
      try await Self.oauth(FakeTransport { _ in Fixtures.response(huge) }).exchange(
        code: "c", verifier: "v", redirectURI: "https://a/cb")
    }
  }

  @Test func theUserComesWithTheTokensScopes() async throws {
    let transport = FakeTransport { _ in
      Fixtures.response(
        "{\"login\":\"octocat\",\"id\":583231,\"avatar_url\":\"https://avatars.test/u/583231?v=4\",\"type\":\"User\"}",
        headers: [("Content-Type", "application/json"), ("X-OAuth-Scopes", "repo, read:org")])
    }
    let user = try await Self.oauth(transport).user(token: Self.token)
    expectEqual(
      user,
      GitHubUser(
        login: "octocat", id: 583231, avatarURL: "https://avatars.test/u/583231?v=4",
        scopes: ["repo", "read:org"]))
    expectTrue(user.access == .repoScope && user.access.maySeePrivate)
    expectEqual(RepositoryAccess(scopes: ["public_repo", "repo:status", "read:user"]), .publicOnly)
    let request = try #require(transport.requests.first)
    expectTrue(
      request.url == "http://api.test/user" && request.headers["Authorization"] == "Bearer \(Self.token)")
  }

  @Test func aTokenWithoutScopesSeesNoPrivateRepositories() async throws {
    let transport = FakeTransport { _ in
      Fixtures.response("{\"login\":\"octocat\",\"id\":1}", headers: [("X-OAuth-Scopes", "")])
    }
    let user = try await Self.oauth(transport).user(token: Self.token)
    expectTrue(user.scopes.isEmpty && user.access == .publicOnly && !user.access.maySeePrivate)
  }

  /// GitHub App user tokens and fine-grained tokens have no scopes header at all: such a token may
  /// see private repositories, so the reader's answers are their own until their items say otherwise.
  @Test func aTokenWithNoScopesHeaderMaySeePrivateRepositories() async throws {
    let transport = FakeTransport { _ in Fixtures.response("{\"login\":\"octocat\",\"id\":1}") }
    let user = try await Self.oauth(transport).user(token: "ghu_" + String(repeating: "a", count: 36))
    expectTrue(user.scopes.isEmpty && user.access == .unknown && user.access.maySeePrivate)
    expectEqual(RepositoryAccess(scopesHeader: nil), .unknown)
    expectEqual(RepositoryAccess(scopesHeader: ""), .publicOnly)
    expectEqual(RepositoryAccess(scopesHeader: "read:org, repo"), .repoScope)
  }

  @Test(
    "hostile /user answers are typed",
    arguments: [
      (401, "{\"message\":\"Bad credentials\"}", OAuthError.unauthorized),
      (200, "{\"login\":\"<script>\",\"id\":1}", .hostile("login is not a GitHub login")),
      (200, "{\"login\":\"octocat\",\"id\":-4}", .hostile("id is not a positive integer")),
      (200, "{\"login\":\"octocat\",\"id\":1.5}", .hostile("not the JSON GitHub documents")),
      (
        200, "{\"login\":\"octocat\",\"id\":99999999999999999999999}",
        .hostile("not the JSON GitHub documents")
      ),
      (200, "{\"login\":\"octocat\"}", .hostile("id is not a positive integer")),
      (500, "", .unavailable("GitHub answered 500")),
      (403, "{\"message\":\"API rate limit exceeded\"}", .unavailable("GitHub answered 403")),
    ])
  func hostileUsers(status: Int, body: String, expected: OAuthError) async {
    let transport = FakeTransport { _ in Fixtures.response(body, status: status) }
    await #expect(throws: expected) { try await Self.oauth(transport).user(token: Self.token) }
  }

  @Test func aTokenWithHeaderBreakingCharactersIsNeverSent() async {
    let transport = FakeTransport { _ in Fixtures.response("{}") }
    await #expect(throws: OAuthError.unauthorized) {
      try await Self.oauth(transport).user(token: "gho_a\r\nX-Evil: 1")
    }
    await #expect(throws: OAuthError.unauthorized) { try await Self.oauth(transport).revoke(token: "") }
    expectEqual(transport.callCount, 0)
  }

  @Test func revocationDeletesWithBasicCredentialsAndTheTokenInTheBody() async throws {
    let transport = FakeTransport { _ in ClientResponse(status: HTTPStatus(code: 204)) }
    try await Self.oauth(transport).revoke(token: Self.token)
    let request = try #require(transport.requests.first)
    expectTrue(request.method == .delete && request.url == "http://api.test/applications/Iv1.abc/token")
    expectEqual(
      request.headers["Authorization"], "Basic " + Base64.encode(Array("Iv1.abc:\(Self.secret)".utf8)))
    expectEqual(String(decoding: request.body, as: UTF8.self), "{\"access_token\":\"\(Self.token)\"}")
  }

  @Test(
    "revocation failures are typed",
    arguments: [
      (404, OAuthError.unauthorized), (401, .incorrectClientCredentials), (403, .incorrectClientCredentials),
      (422, .hostile("unexpected status 422")), (500, .unavailable("GitHub answered 500")),
    ])
  func revocationFailures(status: Int, expected: OAuthError) async {
    let transport = FakeTransport { _ in Fixtures.response("{}", status: status) }
    await #expect(throws: expected) { try await Self.oauth(transport).revoke(token: Self.token) }
  }

  @Test func noDescriptionShowsTheSecret() {
    var configuration = GitHubOAuthConfiguration(clientID: "Iv1.abc", clientSecret: Self.secret)
    configuration.userAgent = "x"
    var dumped = ""
    dump(configuration, to: &dumped)
    for text in [String(describing: configuration), String(reflecting: configuration), dumped] {
      expectTrue(!text.contains(Self.secret) && text.contains("Iv1.abc"))
    }
  }
}
