import TestSupport
import Testing

@testable import HTTP

/// The final status for `bytes` fed in `chunkSize` pieces into one growing buffer, as a connection
/// feeds the parser; 0 while more is needed, 200 for a request.
private func status(_ bytes: [UInt8], chunkSize: Int, limits: HTTPParserLimits) -> Int {
  var parser = HTTPRequestParser(limits: limits)
  var buffer: [UInt8] = []
  for start in stride(from: 0, to: bytes.count, by: chunkSize) {
    buffer.append(contentsOf: bytes[start..<min(start + chunkSize, bytes.count)])
    let code = parser.parse(buffer).statusCode
    if code != 0 { return code }
  }
  return 0
}

/// Inputs found by `script/fuzz HTTPParser`, whose outcome must not depend on how the bytes arrive.
@Suite(.timeLimit(.minutes(2))) struct FuzzRegressionTests {
  static let limits = HTTPParserLimits(
    maxRequestLineBytes: 64, maxHeaderBytes: 256, maxHeaderCount: 6, maxBodyBytes: 32)

  /// A bare LF after a head already over the size limit was 400 in one read but 431 when trickled.
  @Test(arguments: [1, 7, 300, 4096])
  func bareLFPastTheHeaderLimitIs431HoweverFed(chunkSize: Int) {
    let head = "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "a", count: 300) + "\n\n"
    expectEqual(status(Array(head.utf8), chunkSize: chunkSize, limits: Self.limits), 431)
  }

  /// Within the limit the bare LF is still refused as malformed.
  @Test(arguments: [1, 7, 4096])
  func bareLFWithinTheLimitIs400HoweverFed(chunkSize: Int) {
    let head = "GET / HTTP/1.1\r\nHost: a\r\nX: b\n\n"
    expectEqual(status(Array(head.utf8), chunkSize: chunkSize, limits: Self.limits), 400)
  }

  /// The shape of the fuzzer's reproducer: a garbage request line, then 276 bytes before `\n\n`;
  /// the size limit is judged before the malformed request line could be.
  @Test(arguments: [1, 300])
  func garbageRequestLineThenOversizedHead(chunkSize: Int) {
    var bytes: [UInt8] = Array("'''''^^".utf8) + [UInt8](repeating: 0, count: 5) + [0xFA, 0xFF, 13, 10]
    bytes += [UInt8](repeating: 0xF8, count: 276) + [10, 10]
    expectEqual(status(bytes, chunkSize: chunkSize, limits: Self.limits), 431)
  }
}
