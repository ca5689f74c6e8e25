import HTTP
import HTTPServer
import Synchronization
import TestSupport
import Testing

@testable import CurlClient

/// Failed transfers are reported to the configured log with libcurl's own words, one line each.
@Suite(.timeLimit(.minutes(3))) struct CurlFailureLogTests {
  final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
  }

  @Test func refusedConnectionIsOneLineWithoutTheQuery() async throws {
    let server = try LoopbackServer { _ in }
    let port = server.port
    await server.server.shutdown()
    let lines = Lines()
    var configuration = CurlClientConfiguration()
    configuration.failureLog = { lines.append($0) }
    let client = CurlHTTPClient(configuration: configuration)
    defer { client.shutdown() }
    await #expect(throws: ClientError.self) {
      _ = try await client.execute(ClientRequest(url: "http://127.0.0.1:\(port)/search?q=secret-query"))
    }
    expectEqual(lines.all.count, 1)
    let line = try #require(lines.all.first)
    expectTrue(line.hasPrefix("upstream GET http://127.0.0.1:\(port)/search failed (curl 7: "))
    expectTrue(!line.contains("secret-query") && !line.contains("\n"))
  }
}
