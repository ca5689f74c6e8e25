import CurlClient
import GitHub
import GitHubDouble
import Testing

/// The double serves every field `Repository` declares: a field added to the declaration and decoded
/// from GitHub's JSON, but not written by the double, fails here (the card would never show it in
/// tests, benchmarks or the demo).
@Suite("The double serves every declared repository field", .timeLimit(.minutes(2)))
struct DoubleFieldsTests {
  @Test func everyFieldIsSetOnSomeRepository() async throws {
    let double = GitHubDouble.smallExact()
    let port = try double.start()
    let http = CurlHTTPClient()
    defer { http.shutdown() }
    var configuration = GitHubConfiguration()
    configuration.apiBase = "http://127.0.0.1:\(port)"
    let client = GitHubClient(configuration: configuration, transport: http)
    var items: [Repository] = []
    for page in 1...3 {
      items += try await client.searchRepositories(
        SearchQuery(text: "stars:>=0", sort: .stars), page: page, perPage: 100
      ).items
    }
    // Search leaves forks out unless asked.
    items += try await client.searchRepositories(SearchQuery(text: "stars:>=0 fork:only"), page: 1).items
    await double.shutdown()
    #expect(items.count > 300)
    for field in Repository.Number.allCases {
      #expect(items.contains { $0[field] != 0 }, "no repository has \(field)")
    }
    for field in Repository.Flag.allCases {
      #expect(items.contains { $0[field] }, "no repository has \(field) set")
    }
    for field in Repository.Text.allCases {
      #expect(items.contains { $0[field]?.isEmpty == false }, "no repository has \(field)")
    }
    #expect(items.contains { $0.topicCount > 0 })
  }
}

extension GitHubDouble {
  /// An exact (fault-free) double with a small catalog: 1,500 repositories of 200 owners.
  static func smallExact() -> GitHubDouble {
    var configuration = DoubleConfiguration.exact
    configuration.repositoryCount = 1500
    configuration.ownerCount = 200
    return GitHubDouble(configuration: configuration)
  }
}
