import CurlClient
import HTTP
import TestSupport
import Testing

@testable import GitHub

/// Avatars go through their own transport when one is given; everything else through the API's.
@Suite("Transport split", .timeLimit(.minutes(3)))
struct TransportSplitTests {
  static func client(api: FakeTransport, avatars: FakeTransport?, sameHost: Bool) -> GitHubClient {
    var configuration = GitHubConfiguration()
    configuration.apiBase = "https://ghe.example.test/api/v3"
    configuration.avatarBase = sameHost ? "https://ghe.example.test/api/v3" : "https://avatars.example.test"
    return GitHubClient(
      configuration: configuration, transport: api, avatarTransport: avatars,
      time: ManualClock(epochSeconds: 1_700_000_000).time)
  }

  static let history = Fixtures.response(Fixtures.historyJSON)

  @Test(arguments: [false, true])
  func avatarsAndAPICallsUseTheirOwnTransport(sameHost: Bool) async throws {
    let api = FakeTransport { _ in TransportSplitTests.history }
    let avatars = FakeTransport { _ in AvatarTests.image("image/png") }
    let client = Self.client(api: api, avatars: avatars, sameHost: sameHost)
    _ = try await client.avatar(userID: 42, size: 40)
    try await expectEqual(client.starHistory(owner: "octo", repo: "hello").weeks.count, 2)
    expectTrue(avatars.requests.map(\.url).allSatisfy { $0.contains("/u/42?") })
    expectEqual(avatars.callCount, 1)
    expectEqual(api.callCount, 1)
    expectEqual(api.requests.first?.url.hasSuffix("/repos/octo/hello/stargazers/history?per_page=30"), true)
  }

  @Test func withoutAnAvatarTransportEverythingSharesOne() async throws {
    let api = FakeTransport { request in
      request.url.contains("/u/") ? AvatarTests.image("image/png") : TransportSplitTests.history
    }
    let client = Self.client(api: api, avatars: nil, sameHost: false)
    _ = try await client.avatar(userID: 42, size: 40)
    _ = try await client.starHistory(owner: "octo", repo: "hello")
    expectEqual(api.callCount, 2)
  }

  @Test func aLookalikeHostIsNotTheAvatarHost() async throws {
    let inner = FakeTransport { _ in TransportSplitTests.history }
    let avatars = FakeTransport { _ in AvatarTests.image("image/png") }
    let split = HostSplitTransport(api: inner, avatars: avatars, avatarPrefix: "https://a.example/u/")
    _ = try await split.execute(ClientRequest(url: "https://a.example.evil/u/1"))
    _ = try await split.execute(ClientRequest(url: "https://a.example/u/1?s=40"))
    expectTrue(inner.callCount == 1 && avatars.callCount == 1)
  }
}
