import Credentials
import CurlClient
import HTTP
import SharedStore
import TestSupport
import Testing

@testable import GitHub

/// Calls made as a signed-in reader: the reader's token, the reader's ledger, redaction of the
/// reader's token, and caches and coalescing that never hand one reader's private answers to anyone else.
@Suite("Readers: own token, own ledger, private answers kept to the reader", .timeLimit(.minutes(3)))
struct ReaderTests {
  static let serverToken = "ghp_SERVERtoken0000000000000000000000"
  static let alice = ReaderCredential(
    login: "alice", userID: 101, token: "gho_ALICEaliceALICEaliceALICEaliceALIC1", access: .repoScope)
  static let bob = ReaderCredential(
    login: "bob", userID: 202, token: "gho_BOBbobBOBbobBOBbobBOBbobBOBbobBOBb2", access: .publicOnly)

  static func client(
    _ transport: FakeTransport, store: (any SharedStore)? = nil,
    clock: ManualClock = ManualClock(epochSeconds: 1_700_000_000)
  ) -> GitHubClient {
    var configuration = GitHubConfiguration()
    configuration.apiBase = "http://127.0.0.1:9"
    configuration.avatarBase = "http://127.0.0.1:10"
    configuration.token = serverToken
    return GitHubClient(
      configuration: configuration, transport: transport, sharedStore: store, time: clock.time)
  }

  /// The token a request carried, or "" for none.
  static func bearer(_ request: ClientRequest) -> String {
    let value = request.headers["Authorization"] ?? ""
    return value.hasPrefix("Bearer ") ? String(value.dropFirst(7)) : value
  }

  /// A search answer whose ids say whose token asked: 1 for the server, 2 for Alice (her private
  /// repository), 3 for Bob.
  static func byToken(_ request: ClientRequest) -> ClientResponse {
    switch bearer(request) {
    case alice.token: return Fixtures.search(ids: [2], privateIDs: [2], headers: [("X-OAuth-Scopes", "repo")])
    case bob.token: return Fixtures.search(ids: [3], headers: [("X-OAuth-Scopes", "")])
    default: return Fixtures.search(ids: [1])
    }
  }

  static let query = SearchQuery(text: "swift")

  @Test func aReadersCallCarriesTheReadersTokenAndAnAnonymousOneTheServers() async throws {
    let transport = FakeTransport { Self.byToken($0) }
    let client = Self.client(transport)
    _ = try await client.searchRepositories(Self.query, page: 1, as: Self.bob)
    _ = try await client.searchRepositories(Self.query, page: 2)
    expectEqual(transport.requests.map(Self.bearer), [Self.bob.token, Self.serverToken])
    expectTrue(transport.requests.allSatisfy { $0.headers.values(for: "Authorization").count == 1 })
  }

  @Test func aPrivateReadersAnswersServeNobodyElseAndNobodyElsesServeThem() async throws {
    let transport = FakeTransport { Self.byToken($0) }
    let client = Self.client(transport)
    try await expectEqual(client.searchRepositories(Self.query, page: 1, as: Self.alice).items.map(\.id), [2])
    try await expectEqual(client.searchRepositories(Self.query, page: 1).items.map(\.id), [1])
    try await expectEqual(client.searchRepositories(Self.query, page: 1, as: Self.bob).items.map(\.id), [1])
    // Alice's own answer is cached for her; the public one did not replace it.
    try await expectEqual(client.searchRepositories(Self.query, page: 1, as: Self.alice).items.map(\.id), [2])
    expectEqual(transport.callCount, 2)
    // Histories too: nothing has said whether o/r is public, so Alice's is her own, and the server's
    // token (not checked: it may see private data) asks GitHub about the repository first.
    transport.respond { request in
      request.url.hasSuffix("/repos/o/r")
        ? Fixtures.response("{\"private\":false,\"visibility\":\"public\"}")
        : Fixtures.response(Fixtures.historyJSON)
    }
    _ = try await client.starHistory(owner: "o", repo: "r", as: Self.alice)
    _ = try await client.starHistory(owner: "o", repo: "r")
    expectEqual(
      transport.requests.dropFirst(2).map { $0.url.split(separator: "/").suffix(2).joined(separator: "/") },
      [
        "stargazers/history?per_page=30", "o/r", "stargazers/history?per_page=30",
      ])
  }

  @Test func aPublicReadersAnswerIsSharedWithEveryone() async throws {
    let transport = FakeTransport { Self.byToken($0) }
    let client = Self.client(transport)
    try await expectEqual(client.searchRepositories(Self.query, page: 1, as: Self.bob).items.map(\.id), [3])
    try await expectEqual(client.searchRepositories(Self.query, page: 1).items.map(\.id), [3])
    expectEqual(transport.callCount, 1)
  }

  @Test func concurrentCallsCoalesceOnlyWhenTheAnswerIsPublic() async throws {
    let gate = Gate()
    let transport = FakeTransport { request in
      await gate.wait()
      return Self.byToken(request)
    }
    let client = Self.client(transport)
    async let a = client.searchRepositories(Self.query, page: 1, as: Self.alice)
    async let b = client.searchRepositories(Self.query, page: 1, as: Self.bob)
    async let anonymous = client.searchRepositories(Self.query, page: 1)
    try await SharedTierTests.until { await client.metrics().coalesced == 1 && transport.callCount == 2 }
    await gate.open()
    let ids = try await (a.items.map(\.id), b.items.map(\.id), anonymous.items.map(\.id))
    expectEqual(ids.0, [2])
    expectEqual(ids.1, ids.2)
    expectEqual(transport.callCount, 2)
  }

  @Test func aWaiterDoesNotTakeAnotherCallersRevokedTokenAsItsOwn() async throws {
    let gate = Gate()
    let transport = FakeTransport { request in
      await gate.wait()
      if Self.bearer(request) == Self.bob.token {
        return Fixtures.response("{\"message\":\"Bad credentials\"}", status: 401)
      }
      return Fixtures.search(ids: [1])
    }
    let client = Self.client(transport)
    let bob = Task { () -> GitHubError? in
      do throws(GitHubError) {
        _ = try await client.searchRepositories(Self.query, page: 1, as: Self.bob)
        return nil
      } catch {
        return error
      }
    }
    try await SharedTierTests.until { transport.callCount == 1 }
    async let anonymous = client.searchRepositories(Self.query, page: 1)
    try await SharedTierTests.until { await client.metrics().coalesced == 1 }
    await gate.open()
    try await expectEqual(anonymous.items.map(\.id), [1])
    await expectEqual(bob.value, GitHubError.unauthorized)
    expectEqual(transport.callCount, 2)
  }

  @Test func a401ToAReaderIsUnauthorizedAndToTheServerForbidden() async throws {
    let transport = FakeTransport { _ in Fixtures.response("{\"message\":\"Bad credentials\"}", status: 401) }
    let client = Self.client(transport)
    await #expect(throws: GitHubError.unauthorized) {
      try await client.searchRepositories(Self.query, page: 1, as: Self.bob)
    }
    await #expect(throws: GitHubError.unauthorized) {
      try await client.starHistory(owner: "o", repo: "r", as: Self.alice)
    }
    await #expect(throws: GitHubError.forbidden("Bad credentials")) {
      try await client.searchRepositories(Self.query, page: 1)
    }
  }

  @Test func aTokenThatTurnsOutToSeePrivateRepositoriesIsRefusedAndNothingIsCached() async throws {
    let transport = FakeTransport { _ in
      Fixtures.search(ids: [2], headers: [("X-OAuth-Scopes", "read:user, repo")])
    }
    let client = Self.client(transport)
    await #expect(throws: GitHubError.unauthorized) {
      try await client.searchRepositories(Self.query, page: 1, as: Self.bob)
    }
    transport.respond { _ in Fixtures.search(ids: [1]) }
    try await expectEqual(client.searchRepositories(Self.query, page: 1).items.map(\.id), [1])
    await expectEqual(client.metrics().cacheEntries, 1)
  }

  @Test func eachReaderHasTheirOwnLedgerLearntFromHeaders() async throws {
    let clock = ManualClock(epochSeconds: 10_000)
    let transport = FakeTransport { request in
      // Bob's limit is shared with his other tools: GitHub says he has none left.
      let remaining = Self.bearer(request) == Self.bob.token ? 0 : 25
      return Fixtures.search(
        ids: [1], headers: RateLimitTests.limitHeaders(remaining: remaining, reset: 10_060))
    }
    let client = Self.client(transport, clock: clock)
    _ = try await client.searchRepositories(SearchQuery(text: "a"), page: 1, as: Self.bob)
    await #expect(throws: GitHubError.rateLimited(resource: .search, until: 10_060, secondary: false)) {
      try await client.searchRepositories(SearchQuery(text: "b"), page: 1, as: Self.bob)
    }
    expectEqual(transport.callCount, 1)
    // Neither Alice nor anonymous readers are held back by Bob's limit.
    _ = try await client.searchRepositories(SearchQuery(text: "c"), page: 1, as: Self.alice)
    _ = try await client.searchRepositories(SearchQuery(text: "d"), page: 1)
    expectEqual(transport.callCount, 3)
    await expectEqual(client.rateLimitSnapshots(for: Self.bob).first?.remaining, 0)
    await expectEqual(client.rateLimitSnapshots(for: Self.alice).first?.remaining, 25)
    await expectEqual(client.rateLimitSnapshots().first?.remaining, 25)
    // A reader nobody has heard of yet has no snapshot (nothing known, nothing refused).
    let carol = ReaderCredential(login: "carol", userID: 303, token: "gho_x", access: .publicOnly)
    expectTrue(await client.rateLimitSnapshots(for: carol).isEmpty)
  }

  @Test func aServerLimitDoesNotStopReaders() async throws {
    let clock = ManualClock(epochSeconds: 10_000)
    let transport = FakeTransport { request in
      if Self.bearer(request) == Self.serverToken {
        return Fixtures.response(
          "{\"message\":\"API rate limit exceeded\"}", status: 403,
          headers: RateLimitTests.limitHeaders(remaining: 0, reset: 10_060))
      }
      return Fixtures.search(ids: [3])
    }
    let client = Self.client(transport, clock: clock)
    await #expect(throws: GitHubError.self) {
      try await client.searchRepositories(SearchQuery(text: "a"), page: 1)
    }
    await #expect(throws: GitHubError.self) {
      try await client.searchRepositories(SearchQuery(text: "b"), page: 1)
    }
    expectEqual(transport.callCount, 1)
    try await expectEqual(
      client.searchRepositories(SearchQuery(text: "b"), page: 1, as: Self.bob).items.map(\.id),
      [
        3
      ])
  }

  @Test func theReadersTokenIsRedactedFromDecodedTextAndErrors() async throws {
    let token = Self.bob.token
    let transport = FakeTransport { _ in
      Fixtures.response(
        "{\"total_count\":1,\"incomplete_results\":false,\"items\":["
          + Fixtures.repositoryJSON(id: 5, description: "\"leak \(token)\"") + "]}")
    }
    let client = Self.client(transport)
    let page = try await client.searchRepositories(Self.query, page: 1, as: Self.bob)
    expectEqual(page.items.first?.description?.contains(token), false)
    expectEqual(page.items.first?.description?.contains("[redacted]"), true)
    transport.respond { _ in
      Fixtures.response("{\"message\":\"nope \(token) \(Self.serverToken)\"}", status: 403)
    }
    do {
      _ = try await client.searchRepositories(SearchQuery(text: "other"), page: 1, as: Self.bob)
      Issue.record("no error")
    } catch {
      expectTrue(!error.description.contains(token) && !error.description.contains(Self.serverToken))
    }
  }

  @Test func aCredentialNeverShowsItsToken() {
    let text = [
      String(describing: Self.alice), String(reflecting: Self.alice), "\(Self.alice)",
      {
        var out = ""; dump(Self.alice, to: &out); return out
      }(),
    ]
    expectTrue(text.allSatisfy { !$0.contains(Self.alice.token) && $0.contains("alice") })
  }

  @Test func aRedactorWithAReadersTokenRemovesBothTokens() {
    let redactor = Redactor(secret: "ghp_AB12").adding("gho_CD34")
    expectEqual(
      redactor.redact("x ghp_AB12 y gho_CD34 z gho%5FCD34"), "x [redacted] y [redacted] z [redacted]")
    expectEqual(Redactor(secret: nil).adding("").redact("gho_CD34"), "gho_CD34")
  }
}
