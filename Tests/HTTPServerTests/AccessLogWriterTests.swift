import HTTP
import Synchronization
import TestSupport
import Testing

@testable import HTTPServer

@Suite(.timeLimit(.minutes(3))) struct AccessLogWriterTests {
  /// Collects the batches a writer hands out.
  final class Batches: Sendable {
    let batches = Mutex<[[UInt8]]>([])
    var write: @Sendable ([UInt8]) -> Void { { batch in self.batches.withLock { $0.append(batch) } } }
    var lines: [String] {
      batches.withLock { $0.flatMap { $0.split(separator: 10, omittingEmptySubsequences: false) } }
        .map { String(decoding: $0, as: UTF8.self) }
    }
    var allEndInNewline: Bool { batches.withLock { $0.allSatisfy { $0.last == 10 } } }
  }

  @Test func aLineHasEveryFieldAndControlBytesBecomeQuestionMarks() {
    let entry = AccessLogEntry(
      requestID: "ab-1", method: "GET", target: "/x?q=a\u{1B}[2J\nforged", status: 200, bytes: 1234,
      duration: .microseconds(1_502_007))
    var buffer: [UInt8] = []
    entry.write(into: &buffer)
    expectEqual(
      String(decoding: buffer, as: UTF8.self), "ab-1 GET /x?q=a?[2J?forged 200 1234B 1502.007ms -\n")
    expectEqual(entry.path, "/x")
  }

  @Test func everyRequestIsWrittenInWholeLinesAndNoneIsLostAtShutdown() async throws {
    let batches = Batches()
    let writer = AccessLogWriter(write: batches.write)
    try await withLiveServer(handler: helloRouter(), accessLog: writer) { live in
      try await onThread {
        let client = try RawSocketClient(port: live.port)
        for i in 0..<20 { _ = try client.request("GET", "/hello?n=\(i)") }
        _ = try client.request("HEAD", "/hello")
        _ = try client.request("GET", "/missing")
        // Pipelined in one write, so several finish in one loop turn.
        try client.send(String(repeating: "GET /hello?p HTTP/1.1\r\nHost: x\r\n\r\n", count: 5))
        for _ in 0..<5 { _ = try client.readResponse() }
      }
    }
    let lines = batches.lines.filter { !$0.isEmpty }
    expectTrue(batches.allEndInNewline)
    expectEqual(lines.count, 27)
    expectEqual(lines.filter { $0.contains(" GET /hello?n=") && $0.contains(" 200 6B ") }.count, 20)
    expectTrue(lines.contains { $0.contains(" HEAD /hello 200 0B ") })
    expectTrue(lines.contains { $0.contains(" GET /missing 404 ") })
    expectEqual(lines.filter { $0.contains(" GET /hello?p 200 6B ") }.count, 5)
    expectTrue(
      lines.allSatisfy {
        $0.firstMatch(of: #/^[0-9a-f]+-[0-9a-z]+ [A-Z]+ \S+ \d{3} \d+B \d+\.\d{3}ms 127\.0\.0\.1$/#) != nil
      })
  }

  @Test func aSmallSizeBoundWritesEachLineAtOnce() async throws {
    let batches = Batches()
    let writer = AccessLogWriter(flushBytes: 0, write: batches.write)
    try await withLiveServer(handler: helloRouter(), accessLog: writer) { live in
      try await onThread {
        let client = try RawSocketClient(port: live.port)
        for _ in 0..<3 { _ = try client.request("GET", "/hello") }
      }
      expectEqual(batches.lines.filter { !$0.isEmpty }.count, 3, "written before shutdown")
    }
    expectEqual(batches.batches.withLock { $0.count }, 3)
  }
}
