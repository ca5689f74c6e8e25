import CurlClient
import FoundationEssentials
import Glibc
import HTTP
import TestSupport
import Testing

/// `github-double` and `repo-scroll` as real processes on loopback, reached through libcurl.
@Suite("End to end", .serialized, .timeLimit(.minutes(5)))
struct EndToEndTests {
  static let token = "ghp_E2EfakeToken0123456789abcdefABCDEF"

  /// Starts both binaries, runs `body` with the app's port, then stops both with SIGTERM and expects a
  /// clean exit from the app.
  static func withProcesses(
    appArguments: [String] = [], _ body: (Int, Int, CurlHTTPClient) async throws -> Void
  ) async throws {
    let client = CurlHTTPClient()
    defer { client.shutdown() }
    let processes = try await AppProcesses.start(
      doubleArguments: ["--latency", "5..20", "--search-limit", "10000", "--core-limit", "100000"],
      appArguments: appArguments, appEnvironment: ["GITHUB_TOKEN": token])
    do {
      try await body(processes.appPort, processes.doublePort, client)
      let server = processes.app
      let status = await server.terminate(signal: SIGTERM, grace: .seconds(10))
      expectEqual(status, .exited(0), "repo-scroll exit: \(status)\n\(server.transcript)")
      expectTrue(server.errorOutput.contains("GET /fragments/results?"), "access log lines on stderr")
      expectTrue(
        !server.output.contains(token) && !server.errorOutput.contains(token), "the token leaked into output")
    } catch {
      await processes.stop()
      throw error
    }
    await processes.double.terminate()
  }

  static func get(_ client: CurlHTTPClient, _ port: Int, _ target: String) async throws -> ClientResponse {
    try await client.execute(ClientRequest(url: "http://127.0.0.1:\(port)\(target)"))
  }

  @Test func aPageAFragmentAnAvatarAndStarsThenACleanShutdown() async throws {
    try await Self.withProcesses { port, _, client in
      let page = try await Self.get(client, port, "/?q=stars%3A%3E%3D0&sort=stars&order=desc")
      expectEqual(page.status.code, 200)
      let html = String(decoding: page.body, as: UTF8.self)
      expectEqual(html.components(separatedBy: "<article class=\"card\"").count - 1, 20)
      expectEqual(page.headers["Content-Security-Policy"]?.contains("default-src 'self'"), true)

      let fragment = try await Self.get(
        client, port, "/fragments/results?q=stars%3A%3E%3D0&sort=stars&order=desc&after=20")
      expectEqual(fragment.status.code, 200)
      let cards = String(decoding: fragment.body, as: UTF8.self)
      expectTrue(cards.contains("aria-posinset=\"21\""))
      expectTrue(cards.contains("aria-posinset=\"40\""))
      expectTrue(cards.contains("after=40"))

      let avatar = try #require(html.firstMatch(of: #/<img src="(/avatars/\d+\?s=80)"/#)).1
      let image = try await Self.get(client, port, String(avatar))
      expectEqual(image.status.code, 200)
      expectEqual(image.headers["Content-Type"], "image/png")

      let stars = try #require(html.firstMatch(of: #/data-stargazers="([^"]+)"/#)).1
      let history = try await Self.get(client, port, String(stars))
      expectEqual(history.status.code, 200)
      expectTrue(String(decoding: history.body, as: UTF8.self).contains("class=\"spark\""))

      let metrics = try await Self.get(client, port, "/metrics")
      expectTrue(String(decoding: metrics.body, as: UTF8.self).contains("reposcroll_upstream_calls_total"))
      for response in [page, fragment, image, history, metrics] {
        expectTrue(!String(decoding: response.body, as: UTF8.self).contains(Self.token))
      }
    }
  }

  @Test func theDemoServesTheWholeExperienceOffline() async throws {
    let root = try ProcessRunner.packageRoot()
    let demo = try ProcessRunner(
      executable: try ProcessRunner.builtProduct("repo-scroll"),
      arguments: [
        "--demo", "--demo-latency", "0..20", "--port", "0", "--templates", root + "/Templates", "--public",
        root + "/Public",
      ], name: "repo-scroll-demo")
    let client = CurlHTTPClient()
    defer { client.shutdown() }
    do {
      let port = try await demo.waitForListeningPort()
      let page = try await Self.get(client, port, "/?q=language%3Aswift&sort=stars")
      expectEqual(page.status.code, 200)
      let html = String(decoding: page.body, as: UTF8.self)
      expectTrue(html.contains("<article class=\"card\""))
      let avatar = try #require(html.firstMatch(of: #/<img src="(/avatars/\d+\?s=80)"/#)).1
      try await expectEqual(Self.get(client, port, String(avatar)).headers["Content-Type"], "image/png")
    } catch {
      await demo.terminate()
      throw error
    }
    let status = await demo.terminate(signal: SIGINT, grace: .seconds(10))
    expectEqual(status, .exited(0), "\(demo.transcript)")
  }

  @Test func badFlagsStopStartupWithAMessage() async throws {
    let app = try ProcessRunner(
      executable: try ProcessRunner.builtProduct("repo-scroll"), arguments: ["--batch-size", "0"],
      name: "repo-scroll-bad")
    let status = try await app.waitForExit(timeout: .seconds(10))
    expectEqual(status, .exited(2))
    expectTrue(app.errorOutput.contains("--batch-size"))
  }
}
