import Clocks
import Credentials
import CurlClient
import Encodings
import GitHub
import GitHubDouble
import HTTP
import TestSupport
import Testing

/// The whole flow over loopback through libcurl, against the GitHub double: the consent form's
/// redirect, the exchange (a POST body), `/user`, a reader's searches, and revocation (a DELETE
/// with a body), after which the reader's token is refused.
@Suite("OAuth flow and reader calls over loopback against the double", .serialized, .timeLimit(.minutes(3)))
struct OAuthLoopbackTests {
  @Test func signInSearchAsTheReaderThenRevoke() async throws {
    try await GitHubDouble.withSmallExactOnLoopback { double, base, http in
      let oauth = GitHubDouble.oauth(
        base, http, clientID: DoubleConfiguration.demoClientID,
        clientSecret: DoubleConfiguration.demoClientSecret,
        userAgent: "RepoScroll-test")
      let callback = "http://127.0.0.1:1/login/callback"
      let verifier = String(repeating: "Verifier-", count: 6)
      let authorize = oauth.authorizeURL(
        redirectURI: callback, state: "s1", codeChallenge: PKCE.challenge(verifier: verifier))
      let form = try #require(authorize.split(separator: "?", maxSplits: 1).last).description
      let repo = try #require(double.catalog.privateRepositories.first)
      let login = double.catalog.owners[repo.ownerIndex].login
      let consent = try await http.execute(
        ClientRequest(
          url: base + "/login/oauth/authorize", method: .post,
          headers: ["Content-Type": "application/x-www-form-urlencoded"],
          body: Array((form + "&login=\(login)&private=on&action=authorize").utf8)))
      expectEqual(consent.status.code, 302)
      let location = try #require(consent.headers["Location"])
      expectTrue(location.hasPrefix(callback + "?"))
      let items = URLEncoding.parseQuery(location.split(separator: "?", maxSplits: 1)[1])
      let code = try #require(items.first { $0.name == "code" }?.value)
      expectEqual(items.first { $0.name == "state" }?.value, "s1")

      await #expect(throws: OAuthError.badVerifier) {
        try await oauth.exchange(code: code, verifier: verifier + "x", redirectURI: callback)
      }
      // That attempt used the code up, as a stolen code's would be.
      await #expect(throws: OAuthError.self) {
        try await oauth.exchange(code: code, verifier: verifier, redirectURI: callback)
      }

      let fresh = try await http.execute(
        ClientRequest(
          url: base + "/login/oauth/authorize", method: .post,
          headers: ["Content-Type": "application/x-www-form-urlencoded"],
          body: Array((form + "&login=\(login)&private=on&action=authorize").utf8)))
      let freshLocation = try #require(fresh.headers["Location"])
      let code2 = try #require(
        URLEncoding.parseQuery(freshLocation.split(separator: "?", maxSplits: 1)[1]).first {
          $0.name == "code"
        }?.value)
      let grant = try await oauth.exchange(code: code2, verifier: verifier, redirectURI: callback)
      await #expect(throws: OAuthError.badVerificationCode("The code passed is incorrect or expired.")) {
        try await oauth.exchange(code: code2, verifier: verifier, redirectURI: callback)
      }
      let user = try await oauth.user(token: grant.accessToken)
      expectTrue(user.login == login && user.scopes == ["repo"])
      let reader = ReaderCredential(
        login: user.login, userID: user.id, token: grant.accessToken, access: user.access)
      expectEqual(reader.access, .repoScope)

      var configuration = GitHubConfiguration()
      configuration.apiBase = base
      configuration.avatarBase = base
      configuration.token = "ghp_serverTokenForTheDouble"
      let client = GitHubClient(configuration: configuration, transport: http, time: .system)
      let query = SearchQuery(text: "topic:private-fixture")
      let mine = try await client.searchRepositories(query, page: 1, as: reader)
      expectTrue(mine.items.contains { $0.fullName == login + "/" + repo.name })
      expectTrue(try await client.searchRepositories(query, page: 1).items.isEmpty)
      try await expectEqual(
        client.starHistory(owner: login, repo: repo.name, as: reader).weeks.isEmpty, false)
      await #expect(throws: GitHubError.notFound) {
        try await client.starHistory(owner: login, repo: repo.name)
      }

      try await oauth.revoke(token: grant.accessToken)
      expectEqual(double.liveTokenCount(login: login), 0)
      await #expect(throws: OAuthError.unauthorized) { try await oauth.revoke(token: grant.accessToken) }
      await #expect(throws: OAuthError.unauthorized) { try await oauth.user(token: grant.accessToken) }
      await #expect(throws: GitHubError.unauthorized) {
        try await client.searchRepositories(SearchQuery(text: "swift"), page: 1, as: reader)
      }
      let searches = double.requestLog().filter { $0.endpoint == .search }.map(\.identity)
      expectEqual(searches, [login, "server", login])
    }
  }
}
