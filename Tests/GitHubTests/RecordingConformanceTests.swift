import CurlClient
import HTTP
import TestSupport
import Testing

@testable import GitHub

/// Expected first-item values of each recorded search response.
struct SearchExpectation: Sendable, CustomTestStringConvertible {
  var file: String
  var totalCount: Int
  var itemCount: Int
  var incomplete: Bool
  var id: Int
  var fullName: String
  var stars: Int
  var ownerLogin: String
  var ownerID: Int
  var description: String?
  var language: String?
  var license: String?
  var homepage: String?
  var rels: [String]
  var testDescription: String { file }
}

let searchExpectations: [SearchExpectation] = [
  .init(
    file: "057-get-search-repositories.json", totalCount: 2723, itemCount: 30, incomplete: false,
    id: 1_951_148,
    fullName: "kennethreitz/legit", stars: 3036, ownerLogin: "kennethreitz", ownerID: 119_893,
    description: "Git for Humans, Inspired by GitHub for Mac™.", language: "Python", license: nil,
    homepage: "http://www.git-legit.org/", rels: ["last", "next"]),
  .init(
    file: "058-get-search-repositories.json", totalCount: 2723, itemCount: 30, incomplete: false,
    id: 3_043_012,
    fullName: "logsol/Github-Auto-Deploy", stars: 159, ownerLogin: "logsol", ownerID: 692_826,
    description:
      "a server that allows you to automatically deploy the latest version of your github project at each git push",
    language: "Python", license: nil, homepage: "http://logsol.github.com/Github-Auto-Deploy/",
    rels: ["first", "last", "next", "prev"]),
  .init(
    file: "066-get-search-repositories.json", totalCount: 8, itemCount: 8, incomplete: false, id: 3_710_711,
    fullName: "sigmavirus24/github3.py", stars: 637, ownerLogin: "sigmavirus24", ownerID: 240_830,
    description: "Python library for interfacing with the GitHub APIv3", language: "Python", license: nil,
    homepage: "https://github3py.readthedocs.io", rels: []),
  .init(
    file: "067-get-search-repositories.json", totalCount: 8, itemCount: 8, incomplete: false, id: 3_710_711,
    fullName: "sigmavirus24/github3.py", stars: 638, ownerLogin: "sigmavirus24", ownerID: 240_830,
    description: "Python library for interfacing with the GitHub APIv3", language: "Python", license: nil,
    homepage: "https://github3py.readthedocs.io", rels: []),
  .init(
    file: "077-get-search-repositories.json", totalCount: 14, itemCount: 14, incomplete: false,
    id: 327_047_575, fullName: "t0m4uk1991/notifyme", stars: 0, ownerLogin: "t0m4uk1991", ownerID: 6_698_785,
    description: nil, language: "Java", license: nil, homepage: nil, rels: []),
  .init(
    file: "078-get-search-repositories.json", totalCount: 45, itemCount: 30, incomplete: false,
    id: 256_256_652, fullName: "hub4j-test-org/test-issue-events", stars: 0, ownerLogin: "hub4j-test-org",
    ownerID: 7_544_739, description: nil, language: nil, license: nil, homepage: nil, rels: ["last", "next"]),
  .init(
    file: "079-get-search-repositories.json", totalCount: 1677, itemCount: 30, incomplete: false,
    id: 68_911_683,
    fullName: "daniel-e/tetros", stars: 678, ownerLogin: "daniel-e", ownerID: 5_294_331,
    description: "Tetris that fits into the boot sector.", language: "Assembly", license: "MIT",
    homepage: nil /* recorded as "" */, rels: ["last", "next"]),
]

/// A client whose transport answers every request with one recorded response.
func replayClient(_ recording: Recording, clock: ManualClock = ManualClock(epochSeconds: 1_700_000_000)) -> (
  GitHubClient, FakeTransport
) {
  let response = recording.response
  let transport = FakeTransport { _ in response }
  return (
    GitHubClient(configuration: GitHubConfiguration(), transport: transport, time: clock.time),
    transport
  )
}

@Suite("Conformance with real GitHub recordings", .timeLimit(.minutes(3)))
struct RecordingConformanceTests {
  @Test func everyRecordedSearchResponseIsCovered() throws {
    let searches = try Recordings.files(containing: "get-search-repositories")
    expectEqual(searches, searchExpectations.map(\.file))
  }

  @Test(arguments: searchExpectations)
  func searchRecordingDecodes(_ expected: SearchExpectation) async throws {
    let recording = try Recordings.load(expected.file)
    expectEqual(recording.status, 200)
    let (client, transport) = replayClient(recording)
    let page = try await client.searchRepositories(SearchQuery(text: "recorded"), page: 1, perPage: 30)
    expectEqual(transport.callCount, 1)
    expectEqual(page.totalCount, expected.totalCount)
    expectEqual(page.incompleteResults, expected.incomplete)
    expectEqual(page.items.count, expected.itemCount)
    expectEqual(page.isStale, false)
    let first = try #require(page.items.first)
    expectEqual(first.id, expected.id)
    expectEqual(first.fullName, expected.fullName)
    expectEqual(first.stargazersCount, expected.stars)
    expectEqual(first.owner?.login, expected.ownerLogin)
    expectEqual(first.owner?.id, expected.ownerID)
    expectEqual(first.description, expected.description)
    expectEqual(first.language, expected.language)
    expectEqual(first.license, expected.license)
    expectEqual(first.homepage, expected.homepage)
    expectEqual(first.name, String(expected.fullName.split(separator: "/")[1]))
    expectEqual(first.htmlURL, "https://github.com/\(expected.fullName)")
    expectEqual(Set(page.links.keys), Set(expected.rels))
    // Items are unique by id, which the paging layer relies on.
    expectEqual(Set(page.items.map(\.id)).count, page.items.count)
  }

  @Test func nullableFieldsAreHandled() async throws {
    // 077: item 4 has no language; item 2 has an MIT license; descriptions null.
    let (client077, _) = replayClient(try Recordings.load("077-get-search-repositories.json"))
    let page077 = try await client077.searchRepositories(SearchQuery(text: "x"), page: 1)
    expectEqual(page077.items[4].id, 374_053_799)
    expectEqual(page077.items[4].language, nil)
    expectEqual(page077.items[2].license, "MIT")
    expectEqual(page077.items[0].description, nil)
    expectTrue(page077.items[0].topics.isEmpty)
    // 057 (2014): no topics, no license key, no archived key, no incomplete_results.
    let (client057, _) = replayClient(try Recordings.load("057-get-search-repositories.json"))
    let page057 = try await client057.searchRepositories(SearchQuery(text: "x"), page: 1, perPage: 30)
    expectTrue(page057.items.allSatisfy { $0.topics.isEmpty && $0.license == nil && !$0.archived })
    expectEqual(page057.items[12].homepage, nil)
    expectEqual(page057.items[0].createdAt, "2011-06-25T05:58:18Z")
    expectEqual(page057.items[0].pushedAt, "2014-01-27T17:39:31Z")
    expectEqual(page057.items[0].forksCount, 118)
    expectEqual(page057.items[0].openIssuesCount, 56)
    // 078: topics present but empty; item 13 licensed.
    let (client078, _) = replayClient(try Recordings.load("078-get-search-repositories.json"))
    let page078 = try await client078.searchRepositories(SearchQuery(text: "x"), page: 1, perPage: 30)
    expectEqual(page078.items[13].license, "MIT")
    expectEqual(
      page078.items[1].description, "A test repository for testing the github-api project: github-api-test")
    expectEqual(page078.items[1].homepage, "http://github-api.kohsuke.org/")
    expectEqual(page078.items[0].owner?.type, "Organization")
  }

  @Test func linksAreParsedByRelNotPosition() throws {
    let page2 = try Recordings.load("058-get-search-repositories.json")
    let links = LinkHeader.parse(try #require(page2.headers["link"]))
    let base =
      "https://api.github.com/search/repositories?sort=stars&q=github+language%3APython&order=desc&page="
    expectEqual(links, ["next": base + "3", "last": base + "34", "first": base + "1", "prev": base + "1"])
    let stargazers = try Recordings.load("071-get-repositories-stargazers.json")
    let starLinks = LinkHeader.parse(try #require(stargazers.headers["link"]))
    let starBase = "https://api.github.com/repositories/11439734/stargazers?per_page=100&page="
    expectEqual(
      starLinks,
      [
        "prev": starBase + "1", "next": starBase + "3", "last": starBase + "5", "first": starBase + "1",
      ])
    let lastPage = try Recordings.load("074-get-repositories-stargazers.json")
    let lastLinks = LinkHeader.parse(try #require(lastPage.headers["link"]))
    expectEqual(lastLinks["next"], nil)
    expectEqual(lastLinks["prev"], starBase + "4")
  }

  /// Replays the 403 recording `file` with the clock at `now`, and expects `request` to fail with
  /// `limit` for each of `names`: the first as recorded, the next refused locally without calling GitHub.
  @discardableResult static func limited(
    _ file: String, now: Double, _ limit: GitHubError, names: [String],
    _ request: (GitHubClient, String) async throws -> Void
  ) async throws -> GitHubClient {
    let recording = try Recordings.load(file)
    expectEqual(recording.status, 403)
    let (client, transport) = replayClient(recording, clock: ManualClock(epochSeconds: now))
    for name in names {
      await #expect(throws: limit, "\(name)") { try await request(client, name) }
    }
    expectEqual(transport.callCount, 1)
    return client
  }

  @Test func abuseRecordingIsASecondaryLimitUntilRetryAfter() async throws {
    let limit = GitHubError.rateLimited(resource: .search, until: 1_000_060, secondary: true)
    try await Self.limited("060-get-search-code.json", now: 1_000_000, limit, names: ["jacquev6", "other"]) {
      _ = try await $0.searchRepositories(SearchQuery(text: $1), page: 1)
    }
  }

  @Test func exhaustedRecordingIsThePrimaryLimit() async throws {
    // No reset header in this 2013 recording: the layer backs off a minute.
    let limit = GitHubError.rateLimited(resource: .core, until: 2_000_060, secondary: false)
    let client = try await Self.limited(
      "063-get-users.json", now: 2_000_000, limit, names: ["PyGithub", "Other"]
    ) {
      _ = try await $0.starHistory(owner: "jacquev6", repo: $1)
    }
    let core = try #require(await client.rateLimitSnapshots().first { $0.resource == .core })
    expectEqual(core.remaining, 0)
    expectEqual(core.limit, 60)
  }

  @Test func missingUserAgentRecordingIsForbidden() async throws {
    let recording = try Recordings.load("061-get-user.json")
    let (client, _) = replayClient(recording)
    await #expect(
      throws: GitHubError.forbidden(
        "Missing or invalid User Agent string. See http://developer.github.com/v3/#user-agent-required")
    ) {
      _ = try await client.starHistory(owner: "octocat", repo: "hello")
    }
  }

  @Test func validationRecordingMapsTo422Message() async throws {
    let recording = try Recordings.load("002-post-repos-labels.json")
    expectEqual(recording.status, 422)
    let (client, _) = replayClient(recording)
    await #expect(throws: GitHubError.validation("Validation Failed")) {
      _ = try await client.searchRepositories(SearchQuery(text: "x"), page: 1)
    }
  }

  @Test func recordedRateLimitHeadersParse() throws {
    let recording = try Recordings.load("078-get-search-repositories.json")
    let limits = try #require(RateLimitHeaders.parse(recording.headers))
    expectEqual(
      limits, RateLimitHeaders(limit: 30, remaining: 29, reset: 1_644_903_625, used: 1, resource: .search))
    let abuse = try #require(RateLimitHeaders.parse(try Recordings.load("060-get-search-code.json").headers))
    expectEqual(abuse, RateLimitHeaders(retryAfter: 60))
    expectEqual(RateLimitHeaders.parse(try Recordings.load("061-get-user.json").headers), nil)
  }
}
