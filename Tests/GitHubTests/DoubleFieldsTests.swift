import Clocks
import CurlClient
@_spi(PackedFields) import GitHub
import GitHubDouble
import TestSupport
import Testing

/// The double serves every field `Repository` declares: a field added to the declaration and decoded
/// from GitHub's JSON, but not written by the double, fails here (the card would never show it in
/// tests, benchmarks or the demo).
@Suite("The double serves every declared repository field", .timeLimit(.minutes(2)))
struct DoubleFieldsTests {
  @Test func everyFieldIsSetOnSomeRepository() async throws {
    var items: [Repository] = []
    try await GitHubDouble.withSmallExactOnLoopback { _, base, http in
      var configuration = GitHubConfiguration()
      configuration.apiBase = base
      let client = GitHubClient(configuration: configuration, transport: http, time: .system)
      for page in 1...3 {
        items += try await client.searchRepositories(
          SearchQuery(text: "stars:>=0", sort: .stars), page: page, perPage: 100
        ).items
      }
      // Search leaves forks out unless asked.
      items += try await client.searchRepositories(SearchQuery(text: "stars:>=0 fork:only"), page: 1).items
    }
    expectTrue(items.count > 300)
    for field in Repository.Number.allCases {
      expectTrue(items.contains { $0[field] != 0 }, "no repository has \(field)")
    }
    for field in Repository.Flag.allCases {
      expectTrue(items.contains { $0[field] }, "no repository has \(field) set")
    }
    for field in Repository.Text.allCases {
      expectTrue(items.contains { $0[field]?.isEmpty == false }, "no repository has \(field)")
    }
    expectTrue(items.contains { $0.topicCount > 0 })
  }
}

extension GitHubDouble {
  /// An exact (fault-free) double with a small catalog: 1,500 repositories of 200 owners.
  static func smallExact() -> GitHubDouble {
    var configuration = DoubleConfiguration.exact
    configuration.repositoryCount = 1500
    configuration.ownerCount = 200
    return GitHubDouble(configuration: configuration, time: .system)
  }

  /// An OAuth client of the double at `base` (its web and API sides alike) as the app `clientID`.
  static func oauth(
    _ base: String, _ http: CurlHTTPClient, clientID: String, clientSecret: String,
    userAgent: String = CurlClientConfiguration.defaultUserAgent
  ) -> GitHubOAuth {
    var settings = GitHubOAuthConfiguration(clientID: clientID, clientSecret: clientSecret)
    settings.webBase = base
    settings.apiBase = base
    settings.userAgent = userAgent
    return GitHubOAuth(configuration: settings, transport: http)
  }

  /// Runs `body` with a `smallExact` double serving on a loopback port, its base URL and a libcurl
  /// client; both are stopped afterwards, also when `body` throws.
  static func withSmallExactOnLoopback(
    _ body: (GitHubDouble, _ base: String, CurlHTTPClient) async throws -> Void
  ) async throws {
    let double = smallExact()
    let port = try double.start()
    let http = CurlHTTPClient()
    defer { http.shutdown() }
    try await withCleanup({ await double.shutdown() }) {
      try await body(double, "http://127.0.0.1:\(port)", http)
    }
  }
}
