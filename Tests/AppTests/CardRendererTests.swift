import CurlClient
import GitHub
import HTTP
import Mustache
import Paging
import TestSupport
import Testing

@testable import App

/// The memoised card path writes exactly what the templates write.
@Suite("Card renderer")
struct CardRendererTests {
  @Test(arguments: ["topic:xss", "language:python", "stars:>=0"])
  func memoisedCardsMatchTheTemplateByteForByte(query: String) async throws {
    let port = try AppHarness.sharedPort()
    var configuration = GitHubConfiguration()
    configuration.apiBase = "http://127.0.0.1:\(port)"
    let transport = CurlHTTPClient()
    defer { transport.shutdown() }
    let client = GitHubClient(configuration: configuration, transport: transport)
    let source = GitHubSearchSource(client: client, query: SearchQuery(text: query, sort: .stars))
    let list = PagedList(source: source, batchSize: 20, classify: GitHubSearchSource.classify)
    let templates = try TemplateLibrary(directory: try ProcessRunner.packageRoot() + "/Templates")
    let renderer = CardRenderer(templates: templates)
    for cursor in [0, 20] {
      let batch = await list.batch(after: cursor)
      let view = BatchView(
        batch: batch, kind: .search(SearchQuery(text: query, sort: .stars)), batchSize: 20, prefetchMargin: 5,
        largestStars: source.largestStars.value, now: 1_795_003_200)
      var expected: [UInt8] = []
      try templates.render("partials/cards", view.mustacheValue, into: &expected)
      for _ in 0..<2 {
        var fast: [UInt8] = []
        for card in view.cards { try renderer.render(card, into: &fast) }
        try templates.render("partials/cards", view.tailValue, into: &fast)
        #expect(fast == expected, "\(query) after \(cursor)")
      }
    }
  }

  @Test func aChangedRepositoryIsRenderedAgain() throws {
    let templates = try TemplateLibrary(directory: try ProcessRunner.packageRoot() + "/Templates")
    let renderer = CardRenderer(templates: templates)
    var repository = Repository(
      id: 7, name: "tool", fullName: "octo/tool",
      owner: RepositoryOwner(
        login: "octo", id: 9, avatarURL: "", htmlURL: "https://github.com/octo", type: "User"),
      htmlURL: "https://github.com/octo/tool", description: "first", fork: false, language: "Swift",
      stargazersCount: 10, forksCount: 1, openIssuesCount: 0, topics: [], license: nil,
      createdAt: "2020-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z", pushedAt: nil, homepage: nil,
      archived: false)
    func render() throws -> String {
      var out: [UInt8] = []
      let card = CardView(
        repository: repository, position: 3, setsize: 9, prefetch: false, largestStars: 20, now: 1_795_003_200
      )
      try renderer.render(card, into: &out)
      return String(decoding: out, as: UTF8.self)
    }
    #expect(try render().contains("first"))
    repository.description = "second \u{1}rsP\u{1}"
    let second = try render()
    #expect(second.contains("second"))
    #expect(second.contains("aria-posinset=\"3\" aria-setsize=\"9\""))
    #expect(second.contains("<rect class=\"bar-fill\" width=\"50\""))
    #expect(second.contains("rsP"), "text that looks like a slot stays text")
  }

  @Test(arguments: [0, 1, 9, 10, 99, 100, 12345, 1000])
  func decimalsAreWrittenAsDigits(value: Int) {
    var out: [UInt8] = []
    CardRenderer.appendDecimal(value, to: &out)
    #expect(String(decoding: out, as: UTF8.self) == String(value))
  }
}

@Suite("URL text")
struct URLTextTests {
  @Test(arguments: ["", "swift", "stars:>=0 language:c++", "ünïcødé/😀?&=#%+", "a~b-c.d_e"])
  func encodingMatchesTheHTTPTarget(text: String) {
    #expect(URLText.encode(text) == URLEncoding.percentEncode(text))
    #expect(
      URLText.query([("q", text), ("after", "20")])
        == URLEncoding.formatQuery([("q", text), ("after", "20")]))
  }
}
