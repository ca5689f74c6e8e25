import Clocks
import Foundation
import Glibc
import HTTP
import HTTPServer
import Synchronization
import TestSupport
import Testing

/// A client socket that trickles a request head one byte at a time and notes when the answer and the
/// close arrive. Nonblocking, so one thread can drive many of them.
final class TricklingConnection {
  let fd: Int32
  let opened = ContinuousClock.now
  private(set) var sent = 0
  private(set) var received: [UInt8] = []
  private(set) var answeredAt: ContinuousClock.Instant?
  private(set) var closedAt: ContinuousClock.Instant?
  private let head: [UInt8]

  init(port: Int, head: String) throws {
    self.head = Array(head.utf8)
    fd = try RawSocketClient.connect(port: port)
  }

  deinit { Glibc.close(fd) }

  var isClosed: Bool { closedAt != nil }

  /// Collects whatever arrived, then sends the next head byte unless the server has answered.
  func step() {
    var chunk = [UInt8](repeating: 0, count: 4096)
    while closedAt == nil {
      let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
      if n > 0 {
        if answeredAt == nil { answeredAt = .now }
        received += chunk[0..<n]
      } else if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        closedAt = .now
      } else {
        break
      }
    }
    guard answeredAt == nil, closedAt == nil, sent < head.count else { return }
    let n = head[sent...].withUnsafeBytes { send(fd, $0.baseAddress, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    if n == 1 { sent += 1 }
  }
}

/// What the slow connections saw, measured on the test thread.
struct TrickleReport: Sendable {
  var answered408 = 0
  var answeredOther: [String] = []
  var unanswered = 0
  var notClosed = 0
  var earliestAnswer: Duration = .zero
  var latestAnswer: Duration = .zero
  var fewestBytesSent = 0
}

@Suite(.serialized, .timeLimit(.minutes(3))) struct SlowlorisTests {
  static let slowCount = 100
  static let headerTimeout = Duration.seconds(1)

  /// Trickles a head on `count` connections, one byte per connection every 200 ms, until the server has
  /// answered and closed them all (or 10 s pass).
  static func trickle(port: Int, count: Int) throws -> TrickleReport {
    let head = "GET /hello HTTP/1.1\r\nHost: a\r\nX-Slow: " + String(repeating: "s", count: 200) + "\r\n\r\n"
    let connections = try (0..<count).map { _ in try TricklingConnection(port: port, head: head) }
    let start = ContinuousClock.now
    while ContinuousClock.now - start < .seconds(10) && !connections.allSatisfy(\.isClosed) {
      for connection in connections { connection.step() }
      sleepFor(.milliseconds(200))  // Real time: one byte per connection every 200 ms, as a slowloris.
    }
    var report = TrickleReport()
    var delays: [Duration] = []
    for connection in connections {
      let text = String(decoding: connection.received, as: UTF8.self)
      if let answered = connection.answeredAt {
        if text.hasPrefix("HTTP/1.1 408 ") {
          report.answered408 += 1
          delays.append(answered - connection.opened)
        } else {
          report.answeredOther.append(String(text.prefix(40)))
        }
      } else {
        report.unanswered += 1
      }
      if !connection.isClosed { report.notClosed += 1 }
    }
    report.earliestAnswer = delays.min() ?? .zero
    report.latestAnswer = delays.max() ?? .zero
    report.fewestBytesSent = connections.map(\.sent).min() ?? 0
    return report
  }

  /// Requests `/hello` until `stop` is set, on one keep-alive connection and on a new connection every
  /// fifth time; returns (successes, failures).
  static func keepRequesting(port: Int, until stop: Flag) -> (Int, [String]) {
    var successes = 0
    var failures: [String] = []
    var keeper = try? RawSocketClient(port: port)
    var round = 0
    while !stop.isSet {
      round += 1
      do {
        let client =
          round % 5 == 0 ? try RawSocketClient(port: port) : try keeper ?? RawSocketClient(port: port)
        let response = try client.request("GET", "/hello")
        if response.status == 200 && response.text == "hello\n" {
          successes += 1
        } else {
          failures.append("round \(round): status \(response.status)")
        }
      } catch {
        failures.append("round \(round): \(error)")
        keeper = try? RawSocketClient(port: port)
      }
      sleepFor(.milliseconds(20))  // Real time: a steady reader, one request every 20 ms.
    }
    return (successes, failures)
  }

  @Test func slowHeadsGet408AtTheHeaderTimeoutWhileOthersAreServed() async throws {
    var router = Router()
    router.get("/hello") { _, _ in .text(.ok, "hello") }
    var configuration = HTTPServerConfiguration(time: .system)
    configuration.headerTimeout = Self.headerTimeout
    try await withLiveServer(configuration, handler: router.handler) { live in
      let port = live.port
      let stop = Flag()
      // The normal client starts first, on its own thread right away (an `async let` could wait for a
      // busy cooperative pool), and stops once every slow connection has been dealt with.
      let normal = NormalClientResult()
      let normalThread = Thread { normal.set(Self.keepRequesting(port: port, until: stop)) }
      normalThread.start()
      let report: TrickleReport
      do {
        report = try await onThread { try Self.trickle(port: port, count: Self.slowCount) }
      } catch {
        stop.set()
        _ = try await normal.wait()
        throw error
      }
      stop.set()
      let (successes, failures) = try await normal.wait()
      _ = await eventually(poll: .milliseconds(50)) { try socketDescriptors(port: port) == 1 }
      let open = try socketDescriptors(port: port)
      await live.server.shutdown()

      expectEqual(report.answered408, Self.slowCount, "\(report)")
      expectTrue(report.answeredOther.isEmpty)
      expectEqual(report.notClosed, 0)
      // The deadline covers the whole head, so trickling does not extend it; margins are generous.
      expectTrue(report.earliestAnswer >= .milliseconds(900))
      expectTrue(report.latestAnswer < Self.headerTimeout + .seconds(3))
      expectTrue(report.fewestBytesSent >= 2, "the heads were trickled before the timeout")
      expectTrue(failures.isEmpty, "\(failures.prefix(5))")
      expectTrue(successes >= 10)
      expectEqual(open, 1, "only the listener is left")
    }
  }
}

/// The normal client's outcome, handed from its thread to the test.
final class NormalClientResult: Sendable {
  private let value = Mutex<(Int, [String])?>(nil)

  func set(_ result: (Int, [String])) { value.withLock { $0 = result } }

  /// Polls until the thread has finished (it stops soon after the flag is set).
  func wait() async throws -> (Int, [String]) {
    try await waitForValue("the normal client's result", timeout: .seconds(60), poll: .milliseconds(20)) {
      value.withLock { $0 }
    }
  }
}
