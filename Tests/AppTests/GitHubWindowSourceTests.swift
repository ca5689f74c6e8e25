import Clocks
import CurlClient
import GitHub
import HTTP
import Paging
import TestSupport
import Testing

@testable import App

/// A window source reads a page's keys and creation times in one call (`keys(of:)`,
/// `createdTimes(of:)`): they must be the rows' own, in order, or windows would list the wrong rows.
@Suite(.timeLimit(.minutes(6))) struct GitHubWindowSourceTests {
  @Test(arguments: [SearchSort.stars, .forks])
  func pageKeysAreTheRowsKeys(key: SearchSort) throws {
    let transport = CurlHTTPClient()
    defer { transport.shutdown() }
    let client = GitHubClient(configuration: GitHubConfiguration(), transport: transport, time: .system)
    let query = SearchQuery(text: "language:swift", sort: key)
    let source = GitHubWindowSource(
      search: GitHubSearchSource(client: client, query: query), key: key, descending: true,
      base: try WindowBase(query, key: key), firstIsPlain: true)
    let items = (0..<50).map { row in
      Repository(
        id: row + 1, name: "r\(row)", fullName: "o/r\(row)", owner: nil,
        htmlURL: "https://github.com/o/r\(row)",
        stargazersCount: row * 37 % 11, forksCount: row * 13 % 7,
        createdAt: CivilDate.isoTimestamp(unixSeconds: 1_600_000_000 - row * 97), updatedAt: "",
        isPublic: true)
    }
    let keys = items.map { key == .forks ? $0.forksCount : $0.stargazersCount }
    expectEqual(source.keys(of: items), keys)
    expectEqual(source.keys(of: items), items.map { source.key(of: $0) })
    expectEqual(source.createdTimes(of: items), (0..<50).map { 1_600_000_000 - $0 * 97 })
    expectTrue(source.keys(of: []).isEmpty && source.createdTimes(of: []).isEmpty)
  }
}
