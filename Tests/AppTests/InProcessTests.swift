import App
import CurlClient
import HTTP
import HTTPServer
import TestSupport
import Testing

/// The app's handler called directly, with an injected transport that never reaches a network.
@Suite("In-process handler")
struct InProcessTests {
  /// A GitHub that cannot be reached.
  struct OfflineTransport: HTTPClientTransport {
    func execute(_ request: ClientRequest) async throws(ClientError) -> ClientResponse {
      throw ClientError.other("offline")
    }
  }

  static func app() throws -> RepoScrollApp {
    let root = try ProcessRunner.packageRoot()
    var configuration = AppConfiguration()
    configuration.templatesDirectory = root + "/Templates"
    configuration.publicDirectory = root + "/Public"
    return try RepoScrollApp(configuration: configuration, transport: OfflineTransport(), log: { _ in })
  }

  static func body(_ response: HTTPResponse) async throws -> String {
    switch response.body {
    case .bytes(let bytes): return String(decoding: bytes, as: UTF8.self)
    case .stream(let stream):
      var all: [UInt8] = []
      for try await chunk in stream { all += chunk }
      return String(decoding: all, as: UTF8.self)
    }
  }

  @Test func anUnreachableGitHubGivesRetryableStatesNotFailures() async throws {
    let app = try Self.app()
    let context = RequestContext(requestID: "t1")
    let fragment = try await app.handler(
      HTTPRequest(method: .get, target: "/fragments/results?q=swift&after=0"), context)
    #expect(fragment.status.code == 200)
    let html = try await Self.body(fragment)
    #expect(html.contains("GitHub could not be reached."))
    #expect(html.contains("data-auto-retry"))
    let page = try await app.handler(HTTPRequest(method: .get, target: "/?q=swift"), context)
    #expect(try await Self.body(page).contains("state state-error"))
    let stars = try await app.handler(
      HTTPRequest(method: .get, target: "/fragments/stars/octo/tool"), context)
    let history = try await Self.body(stars)
    #expect(history.contains("History unavailable right now"))
    #expect(history.contains("data-retry-in=\"30\""))
    let avatar = try await app.handler(HTTPRequest(method: .get, target: "/avatars/5?s=80"), context)
    #expect(avatar.headers["Content-Type"] == "image/svg+xml")
    #expect(app.metrics.count(route: "fragment", status: 200) == 1)
  }
}
