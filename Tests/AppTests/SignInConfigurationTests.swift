import App
import CurlClient
import Foundation
import HTTP
import TestSupport
import Testing

@testable import App

@Suite("Sign in with GitHub: configuration", .timeLimit(.minutes(6)))
struct SignInConfigurationTests {
  /// A file holding `bytes`, in this process's scratch folder (removed at exit).
  static func file(_ bytes: [UInt8]) throws -> String {
    let path = try ScratchFolder.make("signin") + "/file"
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  @Test func theSecretComesFromTheEnvironmentOrAFileNeverAFlag() throws {
    var configuration = AppConfiguration()
    _ = try configuration.parse(
      arguments: ["--github-client-id", "Iv1.abc"], environment: ["GITHUB_CLIENT_SECRET": "s3cret"])
    expectEqual(configuration.githubClientID, "Iv1.abc")
    expectEqual(configuration.githubClientSecret, "s3cret")
    expectTrue(!"\(configuration)".contains("s3cret"))
    var flag = AppConfiguration()
    #expect(throws: AppConfiguration.ConfigurationError.self) {
      _ = try flag.parse(arguments: ["--github-client-secret", "s3cret"], environment: [:])
    }
    var fromFile = AppConfiguration()
    let path = try Self.file(Array("file-secret\n".utf8))
    _ = try fromFile.parse(arguments: ["--github-client-secret-file", path], environment: [:])
    expectEqual(fromFile.githubClientSecret, "file-secret")
    expectTrue(AppConfiguration.helpText.contains("--github-client-id"))
    expectTrue(AppConfiguration.helpText.contains("GITHUB_CLIENT_SECRET"))
  }

  @Test func sessionKeyFilesHold32BytesOr64HexDigits() throws {
    var raw = AppConfiguration()
    let key = (0..<32).map { UInt8($0) }
    _ = try raw.parse(arguments: ["--session-key-file", try Self.file(key)], environment: [:])
    expectEqual(raw.sessionKey, key)
    var hex = AppConfiguration()
    let text =
      key.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
      .joined() + "\n"
    _ = try hex.parse(arguments: ["--session-key-file", try Self.file(Array(text.utf8))], environment: [:])
    expectEqual(hex.sessionKey, key)
    for bad in [Array(repeating: UInt8(1), count: 31), Array("zz".utf8), []] {
      var c = AppConfiguration()
      #expect(throws: AppConfiguration.ConfigurationError.self) {
        _ = try c.parse(arguments: ["--session-key-file", try Self.file(bad)], environment: [:])
      }
    }
    var missing = AppConfiguration()
    #expect(throws: AppConfiguration.ConfigurationError.self) {
      _ = try missing.parse(arguments: ["--session-key-file", "/nonexistent/key"], environment: [:])
    }
  }

  @Test func sharedModeNeedsAKeyFileAndSignInNeedsASecret() throws {
    #expect(throws: RepoScrollApp.StartupError.self) {
      try SignInHarness(redisURL: "redis://127.0.0.1:1/0") { $0.sessionKey = nil }
    }
    #expect(throws: RepoScrollApp.StartupError.self) {
      try SignInHarness { $0.githubClientSecret = nil }
    }
    let h = try SignInHarness { $0.sessionKey = nil }
    expectEqual(h.logs.all.filter { $0.contains("random session key") }.count, 1)
  }

  @Test func publicOrigins() {
    expectEqual(PublicOrigin("https://scroll.example/")?.url, "https://scroll.example")
    expectEqual(PublicOrigin("https://Scroll.Example:8443/app")?.origin, "https://scroll.example:8443")
    expectEqual(PublicOrigin("http://127.0.0.1:8080")?.loopback, true)
    expectEqual(PublicOrigin("http://localhost:8080")?.loopback, true)
    expectEqual(PublicOrigin("http://[::1]:8080")?.loopback, true)
    expectEqual(PublicOrigin("http://127.0.0.1.evil.example")?.loopback, false)
    expectEqual(PublicOrigin("http://scroll.example")?.loopback, false)
    // Default ports are not part of an origin: browsers leave them out of `Origin`.
    expectEqual(PublicOrigin("https://Scroll.Example:443/app")?.origin, "https://scroll.example")
    expectEqual(PublicOrigin("https://scroll.example:443")?.url, "https://scroll.example:443")
    expectEqual(PublicOrigin("http://scroll.example:80")?.origin, "http://scroll.example")
    expectEqual(PublicOrigin("http://scroll.example:443")?.origin, "http://scroll.example:443")
    expectEqual(PublicOrigin("https://[::1]:443")?.origin, "https://[::1]")
    for bad in ["ftp://x", "https://", "https://user@host", "https://h/?q", "https://h/#f", "https://h\\x"] {
      expectEqual(PublicOrigin(bad), nil, "\(bad)")
    }
  }

  @Test func signOutComparesOriginsWithDefaultPortsLeftOut() throws {
    func sameOrigin(_ sent: String?, publicURL: String) throws -> Bool {
      let origin = try #require(PublicOrigin(publicURL)).origin
      var headers: HTTPHeaders = [:]
      if let sent { headers.add(name: "Origin", value: sent) }
      return SignInHandler.isSameOrigin(
        HTTPRequest(method: .post, target: "/logout", headers: headers), origin: origin)
    }
    expectTrue(try sameOrigin("https://host", publicURL: "https://host:443"))
    expectTrue(try sameOrigin("https://HOST:443", publicURL: "https://host"))
    expectTrue(try sameOrigin("http://host", publicURL: "http://host:80"))
    expectTrue(try sameOrigin(nil, publicURL: "https://host:443"))
    expectTrue(try !sameOrigin("https://host:8443", publicURL: "https://host:443"))
    expectTrue(try !sameOrigin("http://host", publicURL: "https://host:443"))
    expectTrue(try !sameOrigin("https://host.evil", publicURL: "https://host"))
    expectTrue(try !sameOrigin("null", publicURL: "https://host"))
    expectTrue(try !sameOrigin("https://host/path", publicURL: "https://host"))
  }
}
