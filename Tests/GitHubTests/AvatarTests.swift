import CurlClient
import HTTP
import TestSupport
import Testing

@testable import GitHub

@Suite("Avatars", .timeLimit(.minutes(3)))
struct AvatarTests {
  static func client(_ transport: FakeTransport, maxBytes: Int = 1024) -> GitHubClient {
    var configuration = GitHubConfiguration()
    configuration.token = "ghp_avatar_secret"
    configuration.avatarBase = "https://avatars.example.test/"
    configuration.maxAvatarBytes = maxBytes
    return GitHubClient(
      configuration: configuration, transport: transport, time: ManualClock(epochSeconds: 1_700_000_000).time)
  }

  static func image(_ type: String, bytes: Int = 16, status: Int = 200) -> ClientResponse {
    ClientResponse(
      status: HTTPStatus(code: status), headers: ["Content-Type": type, "ETag": "\"av\""],
      body: [UInt8](repeating: 7, count: bytes))
  }

  @Test(arguments: ["image/png", "image/jpeg", "image/gif", "image/webp", "IMAGE/PNG; charset=binary"])
  func acceptedTypes(_ type: String) async throws {
    let transport = FakeTransport { _ in AvatarTests.image(type) }
    let avatar = try await Self.client(transport).avatar(userID: 583_231, size: 64)
    expectEqual(avatar.bytes.count, 16)
    expectEqual(avatar.contentType, type.split(separator: ";")[0].lowercased())
    expectEqual(avatar.etag, "\"av\"")
    let request = try #require(transport.requests.first)
    expectEqual(request.url, "https://avatars.example.test/u/583231?s=64")
    expectEqual(request.headers["Authorization"], nil)
    expectEqual(request.headers["User-Agent"], "RepoScroll/1.0")
    expectEqual(request.maxResponseBytes, 1024)
  }

  @Test(arguments: ["text/html", "image/svg+xml", "application/octet-stream", ""])
  func refusedTypes(_ type: String) async {
    let transport = FakeTransport { _ in AvatarTests.image(type) }
    await #expect(throws: GitHubError.self) {
      _ = try await Self.client(transport).avatar(userID: 1, size: 40)
    }
  }

  @Test func oversizedAvatarIsRefused() async {
    let transport = FakeTransport { _ in AvatarTests.image("image/png", bytes: 1025) }
    await #expect(throws: GitHubError.decoding("avatar larger than 1024 bytes")) {
      _ = try await Self.client(transport).avatar(userID: 1, size: 40)
    }
  }

  @Test func redirectsAreNotFollowed() async {
    let transport = FakeTransport { _ in
      ClientResponse(status: .found, headers: ["Location": "https://evil.example.com/x.png"])
    }
    await #expect(throws: GitHubError.upstream(status: 302)) {
      _ = try await Self.client(transport).avatar(userID: 1, size: 40)
    }
    expectEqual(transport.callCount, 1)
  }

  @Test(arguments: [(0, 1), (-5, 1), (1, 1), (460, 460), (461, 460), (Int.max, 460)])
  func sizeIsClamped(size: Int, sent: Int) async throws {
    let transport = FakeTransport { _ in AvatarTests.image("image/png") }
    _ = try await Self.client(transport).avatar(userID: 9, size: size)
    expectEqual(transport.requests.first?.url, "https://avatars.example.test/u/9?s=\(sent)")
  }

  @Test(arguments: [0, -1, Int.min])
  func nonPositiveIDsAreRefused(_ id: Int) async {
    let transport = FakeTransport { _ in AvatarTests.image("image/png") }
    await #expect(throws: GitHubError.invalidInput("avatar id must be a positive integer")) {
      _ = try await Self.client(transport).avatar(userID: id, size: 40)
    }
    expectEqual(transport.callCount, 0)
  }

  @Test(arguments: [
    "https://evil.example.com/u/1?v=4", "https://avatars.example.test.evil.com/u/1",
    "http://avatars.example.test/u/1",
    "https://avatars.example.test/x/1", "https://avatars.example.test/u/abc",
    "https://avatars.example.test/u/",
    "https://avatars.example.test/u/0", "https://avatars.example.test/u/1/../../admin", "",
  ])
  func otherHostsAndPathsAreRefused(_ url: String) async {
    let transport = FakeTransport { _ in AvatarTests.image("image/png") }
    expectEqual(Self.client(transport).avatarUserID(fromURL: url), nil)
    expectEqual(transport.callCount, 0)
  }

  @Test func avatarURLOnTheConfiguredHostIsFetchedByID() async throws {
    let transport = FakeTransport { _ in AvatarTests.image("image/gif") }
    let client = Self.client(transport)
    let id = try #require(client.avatarUserID(fromURL: "https://avatars.example.test/u/583231?v=4"))
    _ = try await client.avatar(userID: id, size: 80)
    expectEqual(transport.requests.map(\.url), ["https://avatars.example.test/u/583231?s=80"])
    // Cached for avatarTTL.
    _ = try await client.avatar(userID: 583_231, size: 80)
    expectEqual(transport.callCount, 1)
    await expectEqual(client.metrics().calls(.avatar, status: 200), 1)
  }
}
