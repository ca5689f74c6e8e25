import Clocks
import Foundation
import HTTP
import TestSupport
import Testing

@testable import HTTPServer

/// JSON access-log lines: every field present, and every line parses whatever bytes the request held.
@Suite(.timeLimit(.minutes(3))) struct AccessLogJSONTests {
  static func object(_ buffer: [UInt8]) throws -> [String: Any] {
    expectTrue(buffer.last == 10 && buffer.dropLast().allSatisfy { $0 != 10 }, "one line")
    let value = try JSONSerialization.jsonObject(with: Data(buffer))
    return try #require(value as? [String: Any])
  }

  @Test func aLineHasEveryField() throws {
    let entry = AccessLogEntry(
      requestID: "ab-1", method: "GET", target: "/fragments/results?q=a&after=20", status: 200, bytes: 1234,
      duration: .microseconds(1_502_007), client: "203.0.113.7")
    var buffer: [UInt8] = []
    entry.writeJSON(instance: "web-1", time: .system, into: &buffer)
    let line = try Self.object(buffer)
    expectEqual(line["request_id"] as? String, "ab-1")
    expectEqual(line["method"] as? String, "GET")
    expectEqual(line["path"] as? String, "/fragments/results?q=a&after=20")
    expectEqual(line["status"] as? Int, 200)
    expectEqual(line["bytes"] as? Int, 1234)
    expectEqual(line["duration_ms"] as? Double, 1502.007)
    expectEqual(line["client"] as? String, "203.0.113.7")
    expectEqual(line["instance"] as? String, "web-1")
    expectEqual(line["level"] as? String, "info")
    let time = try #require(line["time"] as? String)
    expectTrue(time.wholeMatch(of: #/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/#) != nil, "\(time)")
    var failed: [UInt8] = []
    AccessLogEntry(requestID: "x", method: "GET", target: "/", status: 503, bytes: 0, duration: .zero)
      .writeJSON(instance: "i", time: .system, into: &failed)
    try expectEqual(Self.object(failed)["level"] as? String, "error")
  }

  @Test(arguments: [
    "/x?q=\"quoted\"", "/x?q=back\\slash", "/x?q=\u{1B}[2J\nforged\r\u{7F}", "/x?q=caf\u{E9}", "/\u{0}",
    "/x\"}, {\"level\":\"forged",
  ])
  func hostileTargetsStillParse(_ target: String) throws {
    var buffer: [UInt8] = []
    AccessLogEntry(requestID: "a", method: "G\"ET", target: target, status: 200, bytes: 1, duration: .zero)
      .writeJSON(instance: "in\"st", time: .system, into: &buffer)
    let line = try Self.object(buffer)
    expectEqual(line.count, 10)
    expectEqual(line["method"] as? String, "G\"ET")
    expectEqual(line["level"] as? String, "info")
    expectTrue(buffer.allSatisfy { $0 < 0x80 }, "ASCII only")
    if target.utf8.allSatisfy({ $0 < 0x80 }) { expectEqual(line["path"] as? String, target) }
  }

  @Test func anEventLineParsesWithOrWithoutARequestID() throws {
    var buffer: [UInt8] = []
    AccessLogEntry.writeJSONEvent(
      level: "error", requestID: "r-1", message: "handler error: \"x\"\n", instance: "i", time: .system,
      into: &buffer)
    let line = try Self.object(buffer)
    expectEqual(line["message"] as? String, "handler error: \"x\"\n")
    expectEqual(line["request_id"] as? String, "r-1")
    buffer = []
    AccessLogEntry.writeJSONEvent(
      level: "info", requestID: nil, message: "draining", instance: "i", time: .system, into: &buffer)
    try expectTrue(Self.object(buffer)["request_id"] == nil)
  }
}
