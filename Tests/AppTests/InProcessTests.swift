import Clocks
import CurlClient
import HTTP
import HTTPServer
import TestSupport
import Testing

@testable import App

/// The app's handler called directly, with an injected transport that never reaches a network.
@Suite("In-process handler", .timeLimit(.minutes(6)))
struct InProcessTests {
  /// A GitHub that cannot be reached.
  struct OfflineTransport: HTTPClientTransport {
    func execute(_ request: ClientRequest) async throws(ClientError) -> ClientResponse {
      throw ClientError.other("offline")
    }
  }

  static func app() throws -> RepoScrollApp {
    let configuration = try AppHarness.baseConfiguration(api: AppHarness.inProcessBase)
    return try RepoScrollApp(
      configuration: configuration, transport: OfflineTransport(), time: .system, log: { _ in })
  }

  static func get(_ app: RepoScrollApp, _ target: String) async throws -> ClientResponse {
    try await InProcessTransport.call(app.handler, HTTPRequest(method: .get, target: target))
  }

  @Test func anUnreachableGitHubGivesRetryableStatesNotFailures() async throws {
    let app = try Self.app()
    let fragment = try await Self.get(app, "/fragments/results?q=swift&after=0")
    expectEqual(fragment.status.code, 200)
    let html = String(decoding: fragment.body, as: UTF8.self)
    expectTrue(html.contains("GitHub could not be reached."))
    expectTrue(html.contains("data-auto-retry"))
    let page = try await Self.get(app, "/?q=swift")
    expectTrue(String(decoding: page.body, as: UTF8.self).contains("state state-error"))
    let history = String(decoding: try await Self.get(app, "/fragments/stars/octo/tool").body, as: UTF8.self)
    expectTrue(history.contains("History unavailable right now"))
    expectTrue(history.contains("data-retry-in=\"30\""))
    let avatar = try await Self.get(app, "/avatars/5?s=80")
    expectEqual(avatar.headers["Content-Type"], "image/svg+xml")
    expectEqual(app.metrics.count(route: "fragment", status: 200), 1)
  }
}
