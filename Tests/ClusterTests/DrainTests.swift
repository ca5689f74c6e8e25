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
    let outcome = try await onThread { () -> (refused: Bool, health: RawResponse, page: String) in
      // A request half sent before the signal: its connection is busy, so the drain keeps it.
      let probe = try RawSocketClient(port: port, timeout: .seconds(20))
      try probe.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
      let reader = try RawSocketClient(port: port, timeout: .seconds(20))
      try reader.send("GET /?q=stars%3A%3E10 HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\n\r\n")
      var page: [UInt8] = []
      // The streamed page's header arrives before the 1.5 s upstream answers.
      while !String(decoding: page, as: UTF8.self).contains("id=\"main\"") {
        let bytes = try reader.readSome()
        if bytes.isEmpty { break }
        page += bytes
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
      let health = try probe.readResponse()
      page += try reader.readUntilClose()
      return (refused, health, String(decoding: page, as: UTF8.self))
    }
    #expect(outcome.refused, "new connections are refused once draining")
    #expect(outcome.health.status == 503)
    #expect(outcome.health.text == "draining\n")
    #expect(outcome.page.contains("data-repo-id="), "the cards came after the signal")
    #expect(outcome.page.hasSuffix("0\r\n\r\n"), "the chunked page ended with its last chunk, not a cut")
    #expect(outcome.page.contains("</html>"))
    let status = try await app.waitForExit(timeout: .seconds(12))
    #expect(status == .exited(0))
  }
}
