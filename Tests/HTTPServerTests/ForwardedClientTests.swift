import Clocks
import HTTP
import HTTPServer
import TestSupport
import Testing

/// The real client behind a proxy, over a real socket: `X-Forwarded-*` and `X-Request-Id` are
/// believed from trusted peers only; the id is echoed and logged either way.
@Suite(.timeLimit(.minutes(2))) struct ForwardedClientTests {
  /// Answers with what the handler saw: client, secure flag and request id.
  static let echo: HTTPHandler = { _, context in
    .text(.ok, "\(context.clientAddress)|\(context.isSecure)|\(context.requestID)|\(context.remoteAddress)")
  }

  static func configuration(trusting list: String) throws -> HTTPServerConfiguration {
    var configuration = HTTPServerConfiguration(time: .system)
    configuration.trustedProxies = try TrustedProxies(parsing: list)
    return configuration
  }

  static let forged: [(String, String)] = [
    ("X-Forwarded-For", "203.0.113.7"), ("X-Forwarded-Proto", "https"), ("X-Request-Id", "proxy-id-42"),
  ]

  /// The answer to a request with the `forged` headers from a server that trusts `list`, and the
  /// access log the server wrote.
  static func forgedRequest(trusting list: String) async throws -> (RawResponse, [AccessLogEntry]) {
    let log = LogCollector()
    let response = try await withLiveServer(try configuration(trusting: list), handler: echo, log: log.sink) {
      live in
      try await onThread { try RawSocketClient(port: live.port).request("GET", "/x", headers: forged) }
    }
    return (response, log.all)
  }

  @Test func aTrustedProxySpeaksForTheClientAndItsRequestIDIsKept() async throws {
    let (response, logged) = try await Self.forgedRequest(trusting: "127.0.0.1")
    expectEqual(response.text, "203.0.113.7|true|proxy-id-42|127.0.0.1\n")
    expectEqual(response.headers["X-Request-Id"], "proxy-id-42")
    expectEqual(logged.count, 1)
    expectEqual(logged.first?.client, "203.0.113.7")
    expectEqual(logged.first?.requestID, "proxy-id-42")
  }

  @Test func forgedHeadersFromAnUntrustedPeerAreIgnored() async throws {
    // Loopback is not in the trusted block, so this client is just a client sending headers.
    let (response, logged) = try await Self.forgedRequest(trusting: "10.0.0.0/8")
    let parts = response.text.split(separator: "|").map(String.init)
    expectEqual(parts.count, 4)
    expectTrue(parts.first == "127.0.0.1" && parts.dropFirst().first == "false", "\(response.text)")
    let id = try #require(response.headers["X-Request-Id"])
    expectTrue(id != "proxy-id-42" && RequestID.isValid(id))
    expectEqual(parts.dropFirst(2).first, id, "the id the handler saw is the one echoed")
    expectEqual(logged.map(\.client), ["127.0.0.1"])
  }

  @Test func anInvalidRequestIDFromATrustedProxyIsReplaced() async throws {
    try await withLiveServer(try Self.configuration(trusting: "127.0.0.1,::1"), handler: Self.echo) { live in
      let response = try await onThread {
        try RawSocketClient(port: live.port).request(
          "GET", "/x", headers: [("X-Request-Id", "<script>alert(1)</script>")])
      }
      let id = try #require(response.headers["X-Request-Id"])
      expectTrue(RequestID.isValid(id) && !id.contains("script"))
      expectTrue(response.text.hasPrefix("127.0.0.1|false|\(id)|"))
    }
  }

  @Test func aRequestThatNeverParsedStillGetsAnEchoedID() async throws {
    let log = LogCollector()
    try await withLiveServer(handler: Self.echo, log: log.sink) { live in
      let response = try await onThread {
        let client = try RawSocketClient(port: live.port)
        try client.send("GET /x HTTP/1.1\r\nHost: test\r\nBad Header\r\n\r\n")
        return try client.readResponse()
      }
      expectEqual(response.status, 400)
      let id = try #require(response.headers["X-Request-Id"])
      expectEqual(log.all.map(\.requestID), [id])
    }
  }
}
