import Credentials
import CurlClient
import HTTP
import SharedStore
import Synchronization
import TestSupport
import Testing

@testable import GitHub

/// Privacy decided by what GitHub returns, tried as an attacker would: an answer with any item GitHub
/// did not call public belongs to whoever fetched it (cache key, coalescing, shared store), a token
/// whose scopes are unknown is one that may see private data, anonymous readers never receive a
/// non-public item, and star histories follow what the items said about their repositories.
@Suite("Privacy: answers scoped by their items, failing closed", .timeLimit(.minutes(3)))
struct PrivacyTests {
  static let serverToken = "ghp_SERVERtoken0000000000000000000000"
  /// A GitHub App user: no scopes header, so her token may see private repositories.
  static let app = ReaderCredential(
    login: "app-user", userID: 404, token: "ghu_APPappAPPappAPPappAPPappAPPappAPPa4", access: .unknown)
  /// An OAuth app user without `repo`: public only, shared as before.
  static let plain = ReaderCredential(
    login: "plain", userID: 505, token: "gho_PLAINplainPLAINplainPLAINplainPLA5", access: .publicOnly)
  static let query = SearchQuery(text: "secret")

  static func client(
    _ transport: FakeTransport, token: String? = serverToken, store: (any SharedStore)? = nil,
    clock: ManualClock = ManualClock(epochSeconds: 1_700_000_000), log: (@Sendable (String) -> Void)? = nil
  ) -> GitHubClient {
    var configuration = GitHubConfiguration()
    configuration.apiBase = "http://127.0.0.1:9"
    configuration.avatarBase = "http://127.0.0.1:10"
    configuration.token = token
    configuration.eventLog = log
    return GitHubClient(
      configuration: configuration, transport: transport, sharedStore: store, time: clock.time)
  }

  static func bearer(_ request: ClientRequest) -> String {
    String((request.headers["Authorization"] ?? "").dropFirst(7))
  }

  /// What a token sees for "secret": the public repository 1 for everyone, and the private
  /// repository 2 (plus an internal one, 3) for the App user and the server's token.
  static func seenBy(_ request: ClientRequest) -> ClientResponse {
    switch bearer(request) {
    case app.token, serverToken:
      return Fixtures.response(
        "{\"total_count\":3,\"incomplete_results\":false,\"items\":[" + Fixtures.repositoryJSON(id: 1) + ","
          + Fixtures.repositoryJSON(id: 2, visibility: Fixtures.privateFields) + ","
          + Fixtures.repositoryJSON(id: 3, visibility: "\"private\":false,\"visibility\":\"internal\",")
          + "]}")
    default:
      return Fixtures.search(ids: [1])
    }
  }

  /// A store that records every key it is asked about and every value it is given.
  final class RecordingStore: SharedStore {
    let inner: MemoryStore
    private let seen = Mutex<(keys: [String], values: [[UInt8]])>(([], []))
    init(clock: ManualClock) { inner = MemoryStore(time: clock.time) }
    var keys: [String] { seen.withLock { $0.keys } }
    var values: [[UInt8]] { seen.withLock { $0.values } }
    private func note(_ key: String, _ value: [UInt8]? = nil) {
      seen.withLock {
        $0.keys.append(key)
        if let value { $0.values.append(value) }
      }
    }
    func value(for key: String) async -> [UInt8]? {
      note("get " + key)
      return await inner.value(for: key)
    }
    func setValue(_ bytes: [UInt8], for key: String, keepFor seconds: Double) async {
      note("set " + key, bytes)
      await inner.setValue(bytes, for: key, keepFor: seconds)
    }
    func lock(_ key: String, for seconds: Double) async -> LockOutcome {
      note("lock " + key)
      return await inner.lock(key, for: seconds)
    }
    func unlock(_ token: LockToken) async { await inner.unlock(token) }
    func reserve(_ resource: String, now: Double) async -> LedgerRefusal? {
      note(resource)
      return await inner.reserve(resource, now: now)
    }
    func refund(_ resource: String) async { await inner.refund(resource) }
    func record(_ resource: String, limit: Int, remaining: Int, reset: Int) async {
      note(resource)
      await inner.record(resource, limit: limit, remaining: remaining, reset: reset)
    }
    func block(_ resource: String, until: Int, secondary: Bool) async {
      note(resource)
      await inner.block(resource, until: until, secondary: secondary)
    }
    func status() async -> SharedStoreStatus { await inner.status() }
  }

  @Test(arguments: [
    ("\"private\":false,\"visibility\":\"public\",", true), ("\"private\":false,", true),
    ("\"visibility\":\"public\",", true), ("\"private\":true,\"visibility\":\"private\",", false),
    ("\"private\":false,\"visibility\":\"internal\",", false), ("\"private\":true,", false),
    ("\"visibility\":\"private\",", false), ("", false), ("\"private\":\"false\",", false),
    ("\"private\":false,\"visibility\":\"something-new\",", false),
    ("\"private\":true,\"visibility\":\"public\",", false),
  ])
  func anItemIsPublicOnlyWhenGitHubSaysSo(fields: String, isPublic: Bool) throws {
    let body =
      "{\"total_count\":1,\"incomplete_results\":false,\"items\":["
      + Fixtures.repositoryJSON(id: 1, visibility: fields) + "]}"
    let page = try ResponseDecoding.searchPage(Array(body.utf8), headers: [:], page: 1, perPage: 100)
    expectEqual(page.items.count, 1, "the item is kept whatever its visibility says")
    expectEqual(page.items.first?.isPublic, isPublic)
  }

  @Test func anonymousReadersNeverReceiveANonPublicItemTheServerTokenSaw() async throws {
    let lines = Mutex<[String]>([])
    let transport = FakeTransport { Self.seenBy($0) }
    let client = Self.client(transport) { line in lines.withLock { $0.append(line) } }
    let page = try await client.searchRepositories(Self.query, page: 1)
    expectEqual(page.items.map(\.id), [1])
    expectEqual(page.totalCount, 1, "GitHub's count of 3 is lowered by what was left out")
    // From the cache, the same.
    try await expectEqual(client.searchRepositories(Self.query, page: 1).items.map(\.id), [1])
    expectEqual(transport.callCount, 1)
    await expectEqual(client.metrics().privateWithheld, 2)
    let logged = lines.withLock { $0 }
    expectEqual(logged.count, 1, "one log line for the answer: \(logged)")
    expectEqual(logged.first?.contains("left out 2 non-public"), true)
    expectTrue(!logged.joined().contains("repo2") && !logged.joined().contains("repo3"), "no name in the log")
    // The server's token sees private data, and the client says so.
    expectTrue(client.serverTokenMaySeePrivate)
  }

  @Test func aReaderWhoMaySeePrivateDataGetsTheirItemsWhenAPublicAnswerIsCached() async throws {
    let transport = FakeTransport { Self.seenBy($0) }
    let client = Self.client(transport, token: nil)
    try await expectEqual(client.searchRepositories(Self.query, page: 1).items.map(\.id), [1])
    try await expectEqual(
      client.searchRepositories(Self.query, page: 1, as: Self.app).items.map(\.id), [1, 2, 3])
    expectEqual(transport.callCount, 2)
    // Her answer is hers: anonymous and plain readers still get the public one, from the cache.
    try await expectEqual(client.searchRepositories(Self.query, page: 1).items.map(\.id), [1])
    try await expectEqual(client.searchRepositories(Self.query, page: 1, as: Self.plain).items.map(\.id), [1])
    // And hers is cached for her.
    try await expectEqual(
      client.searchRepositories(Self.query, page: 1, as: Self.app).items.map(\.id), [1, 2, 3])
    expectEqual(transport.callCount, 2)
    await expectEqual(client.metrics().ownAnswers, 1)
    expectTrue(client.owner(of: Self.app) == .reader(404) && client.owner(of: Self.plain) == .everyone)
  }

  @Test func aReaderWhoMaySeePrivateDataSharesAnAnswerThatTurnsOutPublic() async throws {
    let transport = FakeTransport { _ in Fixtures.search(ids: [1, 5]) }
    let client = Self.client(transport, token: nil)
    try await expectEqual(
      client.searchRepositories(Self.query, page: 1, as: Self.app).items.map(\.id), [1, 5])
    try await expectEqual(client.searchRepositories(Self.query, page: 1).items.map(\.id), [1, 5])
    try await expectEqual(
      client.searchRepositories(Self.query, page: 1, as: Self.app).items.map(\.id), [1, 5])
    expectEqual(transport.callCount, 1)
  }

  @Test func aPlainReadersAnswerWithAPrivateItemIsTheirsAndTheirsFromThenOn() async throws {
    // Whatever the headers say: scopes without `repo`, yet a private item.
    let transport = FakeTransport { _ in
      Fixtures.search(ids: [1, 2], privateIDs: [2], headers: [("X-OAuth-Scopes", "read:user")])
    }
    let client = Self.client(transport, token: nil)
    try await expectEqual(
      client.searchRepositories(Self.query, page: 1, as: Self.plain).items.map(\.id), [1, 2])
    expectEqual(client.owner(of: Self.plain), .reader(505))
    transport.respond { _ in Fixtures.search(ids: [1]) }
    try await expectEqual(client.searchRepositories(Self.query, page: 1).items.map(\.id), [1])
    try await expectEqual(
      client.searchRepositories(Self.query, page: 1, as: Self.plain).items.map(\.id), [1, 2])
    expectEqual(transport.callCount, 2)
  }

  @Test func aWaiterNeverTakesAnotherCallersPrivateAnswer() async throws {
    let gate = Gate()
    let transport = FakeTransport { request in
      if Self.bearer(request) == Self.plain.token {
        await gate.wait()
        return Fixtures.search(ids: [1, 2], privateIDs: [2])
      }
      return Fixtures.search(ids: [1])
    }
    let client = Self.client(transport, token: nil)
    async let plain = client.searchRepositories(Self.query, page: 1, as: Self.plain)
    try await SharedTierTests.until { transport.callCount == 1 }
    async let anonymous = client.searchRepositories(Self.query, page: 1)
    try await SharedTierTests.until { await client.metrics().coalesced == 1 }
    await gate.open()
    try await expectEqual(plain.items.map(\.id), [1, 2])
    try await expectEqual(anonymous.items.map(\.id), [1], "the anonymous waiter loaded again as itself")
    expectEqual(transport.callCount, 2)
  }

  @Test func ownAnswersNeverReachTheSharedStoreNorItsLocks() async throws {
    let clock = ManualClock(epochSeconds: 1_700_000_000)
    let store = RecordingStore(clock: clock)
    let transport = FakeTransport { Self.seenBy($0) }
    let client = Self.client(transport, store: store, clock: clock)
    _ = try await client.searchRepositories(Self.query, page: 1, as: Self.app)
    // Her call read the URL's public entry (for its ETag) and counted on her ledger; it took no lock
    // and stored nothing.
    let afterReader = store.keys
    expectTrue(afterReader.filter { $0.hasPrefix("lock ") || $0.hasPrefix("set ") }.isEmpty, "\(afterReader)")
    _ = try await client.searchRepositories(Self.query, page: 1)
    for value in store.values {
      let text = String(decoding: value, as: UTF8.self)
      expectTrue(!text.contains("repo2") && !text.contains("repo3"), "a private name in the shared store")
    }
    expectEqual(store.values.count, 1, "the screened anonymous answer only")
    expectTrue(store.keys.allSatisfy { !$0.contains(Self.app.login) && !$0.contains(Self.app.token) })
  }

  @Test func sharedLocksNameNoQueryAndNoRepository() async throws {
    let clock = ManualClock(epochSeconds: 1_700_000_000)
    let store = RecordingStore(clock: clock)
    let transport = FakeTransport { request in
      request.url.contains("/search/") ? Fixtures.search(ids: [1]) : Fixtures.response(Fixtures.historyJSON)
    }
    let client = Self.client(transport, token: nil, store: store, clock: clock)
    _ = try await client.searchRepositories(Self.query, page: 1)
    _ = try await client.starHistory(owner: "owner", repo: "hidden-name")
    let locks = store.keys.filter { $0.hasPrefix("lock ") }
    expectEqual(locks.count, 2, "\(store.keys)")
    for lock in locks {
      expectTrue(!lock.contains("secret") && !lock.contains("hidden-name") && !lock.contains("/"), "\(lock)")
    }
  }

  @Test func aHistoryFollowsWhatSearchItemsSaidOfItsRepository() async throws {
    let transport = FakeTransport { request in
      request.url.contains("/search/") ? Self.seenBy(request) : Fixtures.response(Fixtures.historyJSON)
    }
    let client = Self.client(transport)
    _ = try await client.searchRepositories(Self.query, page: 1, as: Self.app)
    expectEqual(transport.callCount, 1)
    // repo2 is private, repo3 internal: the App user's own; an anonymous reader never gets them.
    for name in ["repo2", "repo3"] {
      _ = try await client.starHistory(owner: "owner", repo: name, as: Self.app)
      await #expect(throws: GitHubError.notFound) { try await client.starHistory(owner: "owner", repo: name) }
    }
    expectEqual(transport.callCount, 3)
    await expectEqual(client.metrics().privateWithheld, 2)
    // repo1 is public: one shared history, whoever asks first.
    _ = try await client.starHistory(owner: "owner", repo: "repo1", as: Self.app)
    _ = try await client.starHistory(owner: "owner", repo: "repo1")
    _ = try await client.starHistory(owner: "owner", repo: "repo1", as: Self.plain)
    expectEqual(transport.callCount, 4)
  }

  @Test func theServerTokenAsksGitHubBeforeAnAnonymousHistoryOfAnUnknownRepository() async throws {
    let transport = FakeTransport { request in
      switch request.url.split(separator: "/").suffix(2).joined(separator: "/") {
      case "owner/hidden": return Fixtures.response("{\"private\":true,\"visibility\":\"private\"}")
      case "owner/open": return Fixtures.response("{\"private\":false,\"visibility\":\"public\"}")
      default: return Fixtures.response(Fixtures.historyJSON)
      }
    }
    let client = Self.client(transport)
    await #expect(throws: GitHubError.notFound) {
      try await client.starHistory(owner: "owner", repo: "hidden")
    }
    await #expect(throws: GitHubError.notFound) {
      try await client.starHistory(owner: "owner", repo: "hidden")
    }
    expectEqual(transport.callCount, 1, "the answer is remembered; no history was fetched")
    _ = try await client.starHistory(owner: "owner", repo: "open")
    _ = try await client.starHistory(owner: "owner", repo: "open")
    expectEqual(transport.callCount, 3)
    await expectEqual(client.metrics().privateWithheld, 2)
  }

  static let serverScopes: [(String?, RepositoryAccess)] = [
    ("repo, read:org", .repoScope), (nil, .unknown), ("", .publicOnly),
  ]

  @Test(arguments: serverScopes)
  func theServerTokenIsCheckedAtStartup(header: String?, access: RepositoryAccess) async throws {
    let transport = FakeTransport { request in
      if request.url.hasSuffix("/repos/o/r") { return Fixtures.response("{\"private\":false}") }
      guard request.url.hasSuffix("/user") else { return Fixtures.response(Fixtures.historyJSON) }
      return Fixtures.response(
        "{\"login\":\"ops\",\"id\":9}",
        headers: [("Content-Type", "application/json")] + (header.map { [("X-OAuth-Scopes", $0)] } ?? []))
    }
    let client = Self.client(transport)
    expectTrue(client.serverTokenMaySeePrivate, "unchecked: may see private data")
    await expectEqual(client.checkServerToken(), access)
    expectEqual(client.serverTokenMaySeePrivate, access.maySeePrivate)
    expectEqual(Self.bearer(try #require(transport.requests.first)), Self.serverToken)
    // A token that sees public data only needs no visibility check before a history.
    _ = try await client.starHistory(owner: "o", repo: "r")
    expectEqual(transport.callCount, (access.maySeePrivate ? 3 : 2))
    await expectEqual(
      Self.client(FakeTransport { _ in Fixtures.response("{}") }, token: nil).checkServerToken(), nil)
  }

  @Test func a304ToTheReadersOwnCallProvesTheirAnswerIsThePublicOne() async throws {
    let transport = FakeTransport { request in
      if request.headers["If-None-Match"] == "\"h1\"" {
        return ClientResponse(status: .notModified, headers: ["ETag": "\"h1\""])
      }
      return Fixtures.response(
        Fixtures.historyJSON, headers: [("Content-Type", "application/json"), ("ETag", "\"h1\"")])
    }
    // No token: the anonymous history is public and shared.
    let client = Self.client(transport, token: nil)
    _ = try await client.starHistory(owner: "o", repo: "r")
    let history = try await client.starHistory(owner: "o", repo: "r", as: Self.app)
    expectEqual(history.weeks.count, 2)
    expectEqual(transport.requests.last?.headers["If-None-Match"], "\"h1\"")
    await expectEqual(client.metrics().revalidated, 1)
    // Her copy is now hers, fresh: no further call.
    _ = try await client.starHistory(owner: "o", repo: "r", as: Self.app)
    expectEqual(transport.callCount, 2)
  }

  @Test func aSharedValueThatHoldsAPrivateItemIsRefused() async throws {
    let clock = ManualClock(epochSeconds: 1_700_000_000)
    let store = MemoryStore(time: clock.time)
    // Another instance of an older release stored a page with a private item under the public key.
    var page = try ResponseDecoding.searchPage(
      Array(Fixtures.searchJSON(ids: [1, 2], privateIDs: [2]).utf8), headers: [:], page: 1, perPage: 100)
    page.isStale = false
    let bytes = try #require(
      PayloadCodec.encode(
        SharedEntry(payload: page, etag: nil, expires: clock.seconds + 60, storedAt: clock.seconds)))
    let transport = FakeTransport { _ in Fixtures.search(ids: [1]) }
    let client = Self.client(transport, token: nil, store: store, clock: clock)
    let url = try client.searchURL(Self.query, page: 1, perPage: 100)
    store.plant(bytes, for: url)
    try await expectEqual(client.searchRepositories(Self.query, page: 1).items.map(\.id), [1])
    expectTrue(await client.metrics().sharedRejected >= 1)
  }
}
