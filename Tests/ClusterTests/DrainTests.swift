import Foundation
import TestSupport
import Testing

/// SIGTERM on a real `repo-scroll` process: it stops accepting at once, answers `/healthz` 503
/// "draining" on connections still open, finishes a streamed page in flight, and exits in time.
@Suite(.timeLimit(.minutes(2)))
struct DrainTests {
  @Test func sigtermRefusesNewConnectionsFinishesTheStreamedPageAndSaysDraining() async throws {
    let root = try ProcessRunner.packageRoot()
    let app = try ProcessRunner(
      executable: try ProcessRunner.builtProduct("repo-scroll"),
      arguments: [
        "--demo", "--demo-latency", "1500", "--port", "0", "--drain-timeout", "8", "--templates",
        root + "/Templates", "--public", root + "/Public",
      ], name: "repo-scroll")
    let port = try await app.waitForListeningPort()
    let pid = app.pid
    let outcome: (refused: Bool, health: RawResponse, page: String)
    do {
      outcome = try await onThread { try Self.drain(port: port, pid: pid) }
    } catch {
      // The server's side of it: what it logged around the signal.
      Issue.record("\(error)\n\(app.transcript)")
      throw error
    }
    expectTrue(outcome.refused, "new connections are refused once draining")
    expectEqual(outcome.health.status, 503)
    expectEqual(outcome.health.text, "draining\n")
    expectTrue(outcome.page.contains("data-repo-id="), "the cards came after the signal")
    expectTrue(outcome.page.hasSuffix("0\r\n\r\n"), "the chunked page ended with its last chunk, not a cut")
    expectTrue(outcome.page.contains("</html>"))
    let status = try await app.waitForExit(timeout: .seconds(12))
    expectEqual(status, .exited(0))
  }

  /// A SIGTERM sent the moment the server listens, before it has even said so, is neither lost nor
  /// fatal: the server drains (nothing is in flight) and exits 0. Before, the signal was ignored
  /// until a dispatch source took it over, registered later on a dispatch thread: sent in between, it
  /// was lost and the server went on serving; sent before, it killed the process undrained.
  @Test func aSigtermTheMomentItListensDrainsAndExits() async throws {
    let root = try ProcessRunner.packageRoot()
    for attempt in 1...3 {
      let port = try ProcessRunner.freeLoopbackPort()
      let app = try ProcessRunner(
        executable: try ProcessRunner.builtProduct("repo-scroll"),
        arguments: [
          "--demo", "--port", "\(port)", "--drain-timeout", "2", "--templates", root + "/Templates",
          "--public", root + "/Public",
        ], name: "repo-scroll")
      let pid = app.pid
      // The signal goes on the first accepted connection, not on the "listening" line, which comes
      // later (and is read by polling).
      try await onThread {
        let deadline = ContinuousClock.now + .seconds(15)
        while (try? RawSocketClient(port: port, timeout: .seconds(1))) == nil {
          guard ContinuousClock.now < deadline else { throw RawClientError("port \(port) never accepted") }
          sleepFor(.microseconds(200))  // Polls: a listening socket is only seen by trying.
        }
        kill(pid, SIGTERM)
      }
      let status = try await app.waitForExit(timeout: .seconds(10))
      expectEqual(status, .exited(0), "attempt \(attempt)\n\(app.transcript)")
      expectTrue(app.transcript.contains("draining connections"), "attempt \(attempt): it drained")
    }
  }

  /// The client's side, on a thread (blocking sockets): a half-sent probe and a streamed page, then
  /// SIGTERM. A failure names its step, since a read's timeout alone does not say which read it was.
  private static func drain(port: Int, pid: pid_t) throws -> (
    refused: Bool, health: RawResponse, page: String
  ) {
    // A request half sent before the signal: its connection is busy, so the drain keeps it.
    let probe = try RawSocketClient(port: port, timeout: .seconds(20))
    try probe.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
    let reader = try RawSocketClient(port: port, timeout: .seconds(20))
    try reader.send("GET /?q=stars%3A%3E10 HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\n\r\n")
    var page: [UInt8] = []
    // The streamed page's header arrives before the 1.5 s upstream answers.
    try step("reading the streamed page's head, before the signal") {
      while !String(decoding: page, as: UTF8.self).contains("id=\"main\"") {
        let bytes = try reader.readSome()
        if bytes.isEmpty { break }
        page += bytes
      }
    }
    kill(pid, SIGTERM)
    // Stops accepting at once: within a second a new connection is refused.
    var refused = false
    for _ in 0..<100 {
      if (try? RawSocketClient(port: port, timeout: .seconds(1))) == nil {
        refused = true
        break
      }
      sleepFor(.milliseconds(10))  // Polls: a refused connection is only seen by trying.
    }
    try probe.send("\r\n")
    let health = try step("reading the half-sent probe's answer, after the signal") {
      try probe.readResponse()
    }
    page += try step("reading the rest of the streamed page, after the signal") {
      try reader.readUntilClose()
    }
    return (refused, health, String(decoding: page, as: UTF8.self))
  }

  /// `body`, its error prefixed by `name`.
  private static func step<T>(_ name: String, _ body: () throws -> T) throws -> T {
    do { return try body() } catch { throw RawClientError("\(name): \(error)") }
  }
}
