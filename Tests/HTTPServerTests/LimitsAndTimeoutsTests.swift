import Clocks
import Dispatch
import HTTP
import HTTPServer
import Synchronization
import TestSupport
import Testing

/// A flag that handler tasks set and tests wait for.
final class Flag: Sendable {
  private let value = Mutex(false)
  /// Signalled once, when the flag is first set.
  private let raised = DispatchSemaphore(value: 0)
  func set() {
    if value.withLock({ old in
      defer { old = true }; return !old
    }) {
      raised.signal()
    }
  }
  var isSet: Bool { value.withLock { $0 } }

  /// Polls until set or `timeout` passes.
  func wait(timeout: Duration) async -> Bool { await eventually(within: timeout) { isSet } }

  /// Blocks this thread until the flag is set (true) or `timeout` passes (false): for the blocking
  /// bodies of `withServer`.
  func waitBlocking(timeout: Duration) -> Bool {
    guard
      raised.wait(
        timeout: .now()
          + .nanoseconds(
            Int(timeout.components.seconds) * 1_000_000_000
              + Int(timeout.components.attoseconds / 1_000_000_000))) == .success
    else { return isSet }
    raised.signal()  // later waits return at once
    return true
  }

  /// A server handler whose one route, `path`, never answers: it sets `started`, waits until its task
  /// is cancelled, then sets `cancelled` and rethrows.
  static func holdingRoute(_ path: String) -> (handler: HTTPHandler, started: Flag, cancelled: Flag) {
    let started = Flag()
    let cancelled = Flag()
    var router = Router()
    router.get(path) { _, _ in
      started.set()
      do {
        try await untilCancelled()
      } catch {
        cancelled.set()
        throw error
      }
    }
    return (router.handler, started, cancelled)
  }
}

@Suite(.serialized, .timeLimit(.minutes(3))) struct LimitsAndTimeoutsTests {
  @Test func requestLineAndHeaderLimits() async throws {
    try await withServer(
      {
        $0.limits.maxRequestLineBytes = 100
        $0.limits.maxHeaderBytes = 200
        $0.limits.maxHeaderCount = 5
      }, handler: helloRouter()
    ) { port in
      let long = try RawSocketClient(port: port)
      try long.send("GET /" + String(repeating: "a", count: 150) + " HTTP/1.1\r\nHost: a\r\n\r\n")
      try expectEqual(long.readResponse().status, 414)
      expectTrue(long.closesConnection())

      let endless = try RawSocketClient(port: port)
      try endless.send("GET /" + String(repeating: "a", count: 150))  // never ends its line
      try expectEqual(endless.readResponse().status, 414)

      let bigHeaders = try RawSocketClient(port: port)
      try bigHeaders.send(
        "GET /hello HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "b", count: 250) + "\r\n\r\n")
      try expectEqual(bigHeaders.readResponse().status, 431)

      let many = try RawSocketClient(port: port)
      try many.send("GET /hello HTTP/1.1\r\nHost: a\r\n" + String(repeating: "X: 1\r\n", count: 5) + "\r\n")
      try expectEqual(many.readResponse().status, 431)

      let fine = try RawSocketClient(port: port)
      try expectEqual(fine.request("GET", "/hello", headers: [("X", "1"), ("Y", "2")]).status, 200)
    }
  }

  @Test func connectionCapAnswers503AndKeepsServedOnes() async throws {
    try await withServer({ $0.maxConnections = 3 }, handler: helloRouter()) { port in
      let served = try (0..<3).map { _ in try RawSocketClient(port: port) }
      for client in served { try expectEqual(client.request("GET", "/hello").status, 200) }
      let extra = try RawSocketClient(port: port)
      let refused = try extra.readResponse()
      expectEqual(refused.status, 503)
      expectTrue(extra.closesConnection())
      for client in served { try expectEqual(client.request("GET", "/hello").status, 200) }
      served[0].close()
      // The freed slot is reused once the server has seen the close.
      var status = 0
      for _ in 0..<50 where status != 200 {
        sleepFor(.milliseconds(100))  // Polls: no event says the server has seen the close.
        let later = try RawSocketClient(port: port)
        status = (try? later.request("GET", "/hello").status) ?? 0
      }
      expectEqual(status, 200)
    }
  }

  @Test func slowHeadGets408AndIsClosed() async throws {
    try await withServer({ $0.headerTimeout = .milliseconds(400) }, handler: helloRouter()) { port in
      let client = try RawSocketClient(port: port)
      // Trickling does not reset the deadline: it covers the whole head.
      try client.trickle("GET /hello HTTP/1.1\r\nHo", pieceSize: 4, pause: .milliseconds(60))
      // The read waits for the server's answer, which the header timeout sends.
      let response = try client.readResponse()
      expectEqual(response.status, 408)
      expectTrue(client.closesConnection())
      // A silent new connection is closed too.
      let silent = try RawSocketClient(port: port)
      let bytes = try silent.readUntilClose()
      expectTrue(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 408"))
    }
  }

  @Test func idleKeepAliveConnectionsAreClosed() async throws {
    try await withServer(
      {
        $0.idleTimeout = .milliseconds(600)
        $0.headerTimeout = .seconds(5)
      }, handler: helloRouter()
    ) { port in
      let client = try RawSocketClient(port: port, timeout: .seconds(3))
      try expectEqual(client.request("GET", "/hello").status, 200)
      let start = ContinuousClock.now
      expectTrue(try client.readUntilClose().isEmpty)
      expectTrue(ContinuousClock.now - start < .seconds(3))
      // Activity before the deadline keeps the connection (together longer than one idle period).
      let busy = try RawSocketClient(port: port)
      for _ in 0..<8 {
        sleepFor(.milliseconds(100))  // Real time: requests spread over more than one idle period.
        try expectEqual(busy.request("GET", "/hello").status, 200)
      }
    }
  }

  @Test func slowReaderIsCutOff() async throws {
    var router = Router()
    router.get("/huge") { _, _ in HTTPResponse(body: .bytes(Array(repeating: 65, count: 16 << 20))) }
    try await withServer({ $0.writeTimeout = .milliseconds(300) }, handler: router.handler) { port in
      let client = try RawSocketClient(port: port, timeout: .seconds(5))
      try client.send("GET /huge HTTP/1.1\r\nHost: a\r\n\r\n")
      // Real time: read nothing for longer than the write timeout, while the server's buffers fill.
      sleepFor(.milliseconds(1200))
      let received = try client.readUntilClose()
      expectTrue(received.count < 16 << 20)
    }
  }

  @Test func disconnectCancelsTheHandler() async throws {
    let (handler, started, cancelled) = Flag.holdingRoute("/slow")
    try await withServer(handler: handler) { port in
      let client = try RawSocketClient(port: port)
      try client.send("GET /slow HTTP/1.1\r\nHost: a\r\n\r\n")
      expectTrue(started.waitBlocking(timeout: .seconds(10)), "the handler started")
      client.close()
      expectTrue(cancelled.waitBlocking(timeout: .seconds(10)), "the handler was cancelled")
    }
  }

  @Test func shutdownDrainsInFlightRequests() async throws {
    let started = Flag()
    let finish = Flag()
    var router = Router()
    router.get("/slow") { _, _ in
      started.set()
      _ = await finish.wait(timeout: .seconds(60))
      return .text(.ok, "finished")
    }
    router.get("/hello") { _, _ in .text(.ok, "hello") }
    try await withLiveServer(handler: router.handler) { live in
      let (port, server) = (live.port, live.server)
      let inFlight = Task {
        try await onThread { () -> RawResponse in
          let client = try RawSocketClient(port: port)
          try client.send("GET /slow HTTP/1.1\r\nHost: a\r\n\r\n")
          let response = try client.readResponse()
          expectTrue(client.closesConnection())
          return response
        }
      }
      let idle = try await onThread { () -> RawSocketClient in
        let c = try RawSocketClient(port: port)
        _ = try c.request("GET", "/hello")
        return c
      }
      expectTrue(await started.wait(timeout: .seconds(5)))
      let start = ContinuousClock.now
      let shutdown = Task { await server.shutdown() }
      // While draining (the slow request still running), new connections are refused (or closed
      // unanswered) as soon as the loops have taken the shutdown in.
      var duringDrain = ""
      _ = await eventually(poll: .milliseconds(20)) {
        duringDrain = try await onThread { () -> String in
          guard let c = try? RawSocketClient(port: port, timeout: .milliseconds(500)) else {
            return "refused"
          }
          try? c.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
          do {
            return try c.readUntilClose().isEmpty ? "closed" : "answered"
          } catch {
            return "hung"
          }
        }
        return duringDrain != "answered"
      }
      expectTrue(duringDrain == "refused" || duringDrain == "closed")
      finish.set()
      await shutdown.value
      expectTrue(ContinuousClock.now - start < .seconds(5))
      let response = try await inFlight.value
      expectEqual(response.status, 200)
      expectEqual(response.text, "finished\n")
      expectEqual(response.headers["Connection"], "close")
      expectTrue(try await onThread { idle.closesConnection() })
      let refused = try? await onThread { try RawSocketClient(port: port) }
      expectTrue(refused == nil)
    }
  }

  @Test func drainTimeoutCancelsStragglers() async throws {
    let (handler, started, cancelled) = Flag.holdingRoute("/forever")
    var configuration = HTTPServerConfiguration(time: .system)
    configuration.drainTimeout = .milliseconds(300)
    try await withLiveServer(configuration, handler: handler) { live in
      let client = try await onThread { () -> RawSocketClient in
        let c = try RawSocketClient(port: live.port)
        try c.send("GET /forever HTTP/1.1\r\nHost: a\r\n\r\n")
        return c
      }
      expectTrue(await started.wait(timeout: .seconds(10)))
      let start = ContinuousClock.now
      await live.server.shutdown()
      expectTrue(ContinuousClock.now - start < .seconds(4))
      expectTrue(cancelled.isSet)
      expectTrue(try await onThread { client.closesConnection() })
    }
  }
}
