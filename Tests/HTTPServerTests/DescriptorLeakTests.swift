import Foundation
import HTTP
import TestSupport
import Testing

@testable import HTTPServer

/// Server-side TCP sockets on `port` that are still open (ESTABLISHED or CLOSE_WAIT), from /proc/net/tcp.
func openServerSockets(port: Int) throws -> Int {
  // procfs files report size 0, so read until end of file rather than trusting the size.
  guard let handle = FileHandle(forReadingAtPath: "/proc/net/tcp") else {
    throw RawClientError("no /proc/net/tcp")
  }
  defer { try? handle.close() }
  let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
  let hexPort = String(format: "%04X", port)
  return text.split(separator: "\n").dropFirst().filter { line in
    let fields = line.split(separator: " ")
    guard fields.count > 3 else { return false }
    return fields[1].hasSuffix(":" + hexPort) && (fields[3] == "01" || fields[3] == "08")
  }.count
}

@Suite(.serialized, .timeLimit(.minutes(3))) struct DescriptorLeakTests {
  @Test func abusiveClientsLeaveNoOpenDescriptors() async throws {
    var router = Router()
    router.get("/hello") { _, _ in .text(.ok, "hello") }
    router.get("/slow") { _, _ in try await untilCancelled() }
    router.get("/big") { _, _ in HTTPResponse(body: .bytes(Array(repeating: 66, count: 4 << 20))) }
    try await withServer({ $0.headerTimeout = .milliseconds(300) }, handler: router.handler) { port in
      var clients: [RawSocketClient] = []
      for (input, _) in ServerBehaviourTests.malformed {
        let c = try RawSocketClient(port: port)
        try c.send(input)
        clients.append(c)
      }
      for text in [
        "GET /slow HTTP/1.1\r\nHost: a\r\n\r\n", "GET /big HTTP/1.1\r\nHost: a\r\n\r\n", "GET /hel", "",
      ] {
        let c = try RawSocketClient(port: port)
        if !text.isEmpty { try c.send(text) }
        clients.append(c)
      }
      let keep = try RawSocketClient(port: port)
      _ = try keep.request("GET", "/hello")
      expectTrue(try openServerSockets(port: port) > 0)  // the detector sees live connections
      // Real time: the half-sent requests reach the server before their clients close.
      sleepFor(.milliseconds(100))
      for c in clients { c.close() }
      keep.close()
      var open = -1
      for _ in 0..<50 {
        sleepFor(.milliseconds(100))  // Polls: the kernel's descriptor table has no event to await.
        open = try openServerSockets(port: port)
        if open == 0 { break }
      }
      expectEqual(open, 0)
    }
  }
}

extension DescriptorLeakTests {
  /// Weak references to a server's loops, taken while it runs.
  final class WeakLoops: @unchecked Sendable {
    // @unchecked Sendable: written once before the server stops, read after; never concurrently.
    var loops: [() -> AnyObject?] = []
  }

  @Test func stoppedServersReleaseTheirLoops() async throws {
    let weak = WeakLoops()
    try await withLiveServer(handler: { _, _ in .text(.ok, "x") }) { live in
      _ = try await onThread { try RawSocketClient(port: live.port).request("GET", "/").status }
      for loop in live.server.eventLoops {
        weak.loops.append({ [weak loop] in loop })
      }
      expectTrue(weak.loops.count >= 1)
    }
    // The loop threads let go of their loops just after they stop.
    _ = await eventually { weak.loops.allSatisfy { $0() == nil } }
    expectTrue(
      weak.loops.allSatisfy { $0() == nil }, "event loops (and their descriptors) outlive the server")
  }
}
