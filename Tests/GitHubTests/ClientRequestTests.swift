import CurlClient
import HTTP
import TestSupport
import Testing

@testable import GitHub

@Suite("Requests: headers, URLs, validation", .timeLimit(.minutes(3)))
struct ClientRequestTests {
  static func client(
    token: String? = nil, transport: FakeTransport,
    clock: ManualClock = ManualClock(epochSeconds: 1_700_000_000)
  )
    -> GitHubClient
  {
    var configuration = GitHubConfiguration()
    configuration.token = token
    configuration.apiBase = "http://127.0.0.1:9/"
    configuration.avatarBase = "http://127.0.0.1:10"
    return GitHubClient(configuration: configuration, transport: transport, time: clock.time)
  }

  static let png = ClientResponse(
    status: .ok, headers: ["Content-Type": "image/png", "ETag": "\"a1\""], body: [0x89, 0x50, 0x4E, 0x47])

  @Test func everyRequestCarriesGitHubHeadersAndTheTokenOnlyGoesToTheAPI() async throws {
    let transport = FakeTransport { request in
      if request.url.contains("/u/") { return ClientRequestTests.png }
      if request.url.contains("/history") { return Fixtures.response(Fixtures.historyJSON) }
      // The server's token is not checked, so it may see private data: it asks about the repository.
      if request.url.hasSuffix("/repos/apple/swift") { return Fixtures.response("{\"private\":false}") }
      return Fixtures.search(ids: [1])
    }
    let client = Self.client(token: "ghp_secret123", transport: transport)
    _ = try await client.searchRepositories(SearchQuery(text: "swift"), page: 1)
    _ = try await client.starHistory(owner: "apple", repo: "swift")
    _ = try await client.starHistory(owner: "apple", repo: "swift", perPage: 5)
    _ = try await client.avatar(userID: 7, size: 40)
    let requests = transport.requests.filter { !$0.url.hasSuffix("/repos/apple/swift") }
    expectTrue(transport.requests.count == 5 && requests.count == 4)
    for request in requests {
      expectEqual(request.method, .get)
      expectEqual(request.headers["User-Agent"], "RepoScroll/1.0")
      expectEqual(request.headers["Accept"], "application/vnd.github+json")
      expectEqual(request.headers["X-GitHub-Api-Version"], "2022-11-28")
    }
    for request in requests.prefix(3) {
      expectTrue(request.url.hasPrefix("http://127.0.0.1:9/"))
      expectEqual(request.headers.values(for: "Authorization"), ["Bearer ghp_secret123"])
    }
    expectEqual(requests[3].url, "http://127.0.0.1:10/u/7?s=40")
    expectEqual(requests[3].headers["Authorization"], nil)
  }

  @Test func noTokenMeansNoAuthorizationHeader() async throws {
    let transport = FakeTransport { _ in Fixtures.search(ids: [1]) }
    let client = Self.client(transport: transport)
    _ = try await client.searchRepositories(SearchQuery(text: "swift"), page: 1)
    expectEqual(transport.requests[0].headers["Authorization"], nil)
  }

  @Test func theTokenNeverAppearsInErrorsOrDescriptions() async throws {
    let token = "ghp_TOPSECRET"
    let transport = FakeTransport { request in
      if request.url.contains("/stargazers/history") {
        return Fixtures.response("{\"message\":\"Bad token ghp_TOPSECRET here\"}", status: 403)
      }
      if request.url.hasSuffix("/repos/a/b") { return Fixtures.response("{\"private\":false}") }
      throw ClientError.other("connect failed; auth ghp_TOPSECRET")
    }
    let client = Self.client(token: token, transport: transport)
    do {
      _ = try await client.searchRepositories(SearchQuery(text: "swift"), page: 1)
      Issue.record("expected a network error")
    } catch {
      expectEqual(error, .network("connect failed; auth [redacted]"))
      expectTrue(!String(describing: error).contains(token))
    }
    do {
      _ = try await client.starHistory(owner: "a", repo: "b")
      Issue.record("expected a forbidden error")
    } catch {
      expectEqual(error, .forbidden("Bad token [redacted] here"))
    }
    var configuration = GitHubConfiguration()
    configuration.token = token
    expectTrue(!String(describing: configuration).contains(token))
    expectTrue(!String(reflecting: configuration).contains(token))
    var dumped = ""
    dump(configuration, to: &dumped)
    expectTrue(!dumped.contains(token))
  }

  @Test(arguments: [
    (
      SearchQuery(text: "  tetris language:assembly  ", sort: .stars, order: .asc), 2, 50,
      "http://127.0.0.1:9/search/repositories?q=tetris%20language%3Aassembly&sort=stars&order=asc&per_page=50&page=2"
    ),
    (
      SearchQuery(text: "c++ stars:>100 & é/?#"), 1, 100,
      "http://127.0.0.1:9/search/repositories?q=c%2B%2B%20stars%3A%3E100%20%26%20%C3%A9%2F%3F%23&per_page=100&page=1"
    ),
    (
      SearchQuery(text: "x", sort: .helpWantedIssues), 10, 100,
      "http://127.0.0.1:9/search/repositories?q=x&sort=help-wanted-issues&order=desc&per_page=100&page=10"
    ),
  ])
  func searchURLIsEncoded(query: SearchQuery, page: Int, perPage: Int, expected: String) async throws {
    let transport = FakeTransport { _ in Fixtures.search(ids: [1]) }
    let client = Self.client(transport: transport)
    let result = try await client.searchRepositories(query, page: page, perPage: perPage)
    expectEqual(transport.requests.map(\.url), [expected])
    expectEqual(result.page, page)
    expectEqual(result.perPage, perPage)
  }

  @Test func starEndpointsUseDocumentedPaths() async throws {
    let transport = FakeTransport { _ in Fixtures.response(Fixtures.historyJSON) }
    let client = Self.client(transport: transport)
    let history = try await client.starHistory(owner: "my-org", repo: "my.repo_1")
    _ = try await client.starHistory(owner: "my-org", repo: "my.repo_1", perPage: 4)
    expectEqual(
      transport.requests.map(\.url),
      [
        "http://127.0.0.1:9/repos/my-org/my.repo_1/stargazers/history?per_page=30",
        "http://127.0.0.1:9/repos/my-org/my.repo_1/stargazers/history?per_page=4",
      ])
    expectEqual(history.weeks.count, 2)
    expectEqual(
      history.weeks[0], StarWeek(weekStart: 1_754_784_000, total: 19, days: [0, 12, 7, 0, 0, 0, 0]))
    expectEqual(history.weeks[0].week, "2025-08-10")
    expectEqual(history.weeks[1].week, "2025-08-03")
  }

  @Test(arguments: [
    (0, 100, GitHubError.invalidInput("page must be at least 1")),
    (1, 0, GitHubError.invalidInput("perPage must be between 1 and 100")),
    (1, 101, GitHubError.invalidInput("perPage must be between 1 and 100")),
    (11, 100, GitHubError.validation("Only the first 1000 search results are available")),
    (34, 30, GitHubError.validation("Only the first 1000 search results are available")),
    (Int.max, 100, GitHubError.validation("Only the first 1000 search results are available")),
  ])
  func badPagesAreRefusedLocally(page: Int, perPage: Int, expected: GitHubError) async {
    let transport = FakeTransport { _ in Fixtures.search(ids: [1]) }
    let client = Self.client(transport: transport)
    await #expect(throws: expected) {
      _ = try await client.searchRepositories(SearchQuery(text: "x"), page: page, perPage: perPage)
    }
    expectEqual(transport.callCount, 0)
  }

  @Test func pagingToTheCapNeverAsksForPageEleven() async throws {
    let transport = FakeTransport { _ in Fixtures.search(ids: [1]) }
    let client = Self.client(transport: transport)
    var page = 1
    while true {
      do {
        _ = try await client.searchRepositories(SearchQuery(text: "all"), page: page, perPage: 100)
        page += 1
      } catch {
        expectEqual(error, .validation(GitHubClient.searchCapMessage))
        break
      }
    }
    expectEqual(page, 11)
    expectEqual(transport.callCount, 10)
    expectTrue(!transport.requests.contains { $0.url.contains("page=11") })
    expectEqual(transport.requests.last?.url.hasSuffix("per_page=100&page=10"), true)
  }

  @Test(arguments: ["", "   ", String(repeating: "a", count: 257)])
  func badQueryTextIsRefusedLocally(_ text: String) async {
    let transport = FakeTransport { _ in Fixtures.search(ids: [1]) }
    let client = Self.client(transport: transport)
    await #expect(throws: GitHubError.self) {
      _ = try await client.searchRepositories(SearchQuery(text: text), page: 1)
    }
    expectEqual(transport.callCount, 0)
  }

  @Test(arguments: [
    ("octocat", "../../etc"), ("-bad", "repo"), ("a/b", "repo"), ("owner", ".."), ("owner", "a b"),
    ("", "repo"), ("owner", ""), ("own%2e", "r"), ("owner", "r?x=1"),
  ])
  func invalidNamesNeverReachTheTransport(owner: String, repo: String) async {
    let transport = FakeTransport { _ in Fixtures.response(Fixtures.historyJSON) }
    let client = Self.client(transport: transport)
    await #expect(throws: GitHubError.self) { _ = try await client.starHistory(owner: owner, repo: repo) }
    expectEqual(transport.callCount, 0)
  }

  @Test func historyPerPageIsAtMostThirty() async {
    let transport = FakeTransport { _ in Fixtures.response(Fixtures.historyJSON) }
    let client = Self.client(transport: transport)
    await #expect(throws: GitHubError.invalidInput("perPage must be between 1 and 30")) {
      _ = try await client.starHistory(owner: "a", repo: "b", perPage: 31)
    }
    expectEqual(transport.callCount, 0)
  }
}
