import HTTP
import TestSupport
import Testing

@testable import CurlClient

/// Requests that must fail without any network use, and failures that need no local server.
@Suite(.timeLimit(.minutes(3))) struct CurlHTTPClientValidationTests {
  @Test(arguments: [
    "file:///etc/passwd", "ftp://example.com/file", "gopher://example.com/", "javascript:alert(1)",
    "not a url", "", "http://", "//example.com/path", "/relative/path", "http://exa mple.com/",
    "https://example.com/\r\nX-Injected: 1",
  ])
  func rejectsNonHTTPURLsBeforeTheNetwork(url: String) async {
    let client = CurlHTTPClient()
    defer { client.shutdown() }
    await #expect(throws: ClientError.invalidURL(url)) {
      _ = try await client.execute(ClientRequest(url: url))
    }
    // No easy handle was ever created, so nothing reached libcurl's transfer machinery.
    expectEqual(client.debugLiveEasyHandles, 0)
  }

  @Test(arguments: [
    ("X-Bad", "value\r\nInjected: yes"), ("Bad Name", "v"), ("", "v"), ("X-Nul", "a\u{0}b"),
  ])
  func rejectsHeaderFieldsThatCouldSmuggleLines(name: String, value: String) async {
    let client = CurlHTTPClient()
    defer { client.shutdown() }
    await #expect(throws: ClientError.other("invalid header field \(name)")) {
      _ = try await client.execute(
        ClientRequest(url: "http://127.0.0.1:9/", headers: HTTPHeaders([(name, value)])))
    }
    expectEqual(client.debugLiveEasyHandles, 0)
  }

  /// A server that cannot be reached, and the error that says why.
  enum Unreachable: String, CaseIterable, Sendable {
    /// A loopback port that was just closed: the connection is refused (`cannotConnect`).
    case refusedConnection
    /// A host no resolver knows (`cannotResolve`).
    case unresolvableHost
  }

  @Test(arguments: Unreachable.allCases)
  func anUnreachableServerFailsWithItsReason(_ server: Unreachable) async throws {
    let url =
      switch server {
      case .refusedConnection: "http://127.0.0.1:\(closedLoopbackPort())/"
      case .unresolvableHost: "http://nonexistent.invalid/"
      }
    let client = CurlHTTPClient()
    defer { client.shutdown() }
    let error = await #expect(throws: ClientError.self) {
      _ = try await client.execute(ClientRequest(url: url))
    }
    switch (server, error) {
    case (.refusedConnection, .cannotConnect?), (.unresolvableHost, .cannotResolve?): break
    default: Issue.record("\(server): got \(String(describing: error))")
    }
  }

  @Test func alreadyCancelledTaskThrowsCancelled() async {
    let client = CurlHTTPClient()
    defer { client.shutdown() }
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await client.execute(ClientRequest(url: "http://127.0.0.1:9/"))
    }
    await #expect(throws: ClientError.cancelled) { _ = try await task.value }
  }

  @Test func requestsAfterShutdownFail() async {
    let client = CurlHTTPClient()
    client.shutdown()
    client.shutdown()
    await #expect(throws: ClientError.other("client is shut down")) {
      _ = try await client.execute(ClientRequest(url: "http://127.0.0.1:9/"))
    }
  }

  @Test func configurationDefaults() {
    let c = CurlClientConfiguration()
    expectEqual(c.connectTimeout, .seconds(5))
    expectEqual(c.totalTimeout, .seconds(20))
    expectEqual(c.maxResponseBytes, 8 * 1024 * 1024)
    expectEqual(c.maxConcurrentRequests, 32)
    expectEqual(c.followRedirects, false)
    expectEqual(c.userAgent, "RepoScroll/1.0")
    expectEqual(Duration.milliseconds(0).curlMilliseconds, 1)
    expectEqual(Duration.milliseconds(1500).curlMilliseconds, 1500)
  }
}
