import TestSupport
import Testing

@testable import HTTP

@Suite(.timeLimit(.minutes(2))) struct HTTPParserRobustnessTests {
  static let allowed: Set<Int> = [0, 200, 400, 411, 413, 414, 431, 505]

  /// Parses `bytes` whole and also fed in random pieces; both must agree and give an allowed outcome.
  static func check(_ bytes: [UInt8], _ rng: inout SeededGenerator) -> Bool {
    var whole = HTTPRequestParser()
    let expected = whole.parse(bytes).statusCode
    var pieces = HTTPRequestParser()
    var end = 0
    var last = 0
    while end < bytes.count {
      end = min(bytes.count, end + Int.random(in: 1...16, using: &rng))
      last = pieces.parse(Array(bytes[0..<end])).statusCode
      if last != 0 { break }
    }
    return allowed.contains(expected) && (bytes.isEmpty || last == expected || expected == 0)
  }

  @Test func randomBytesNeverCrashOrSurprise() {
    var rng = SeededGenerator(state: 42)
    for _ in 0..<2000 {
      let count = Int.random(in: 0...300, using: &rng)
      let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
      expectTrue(Self.check(bytes, &rng))
    }
  }

  @Test func mutatedRequestsNeverCrashOrSurprise() {
    var rng = SeededGenerator(state: 7)
    let base = Array(
      "POST /a/b?c=d HTTP/1.1\r\nHost: example\r\nContent-Length: 5\r\nConnection: keep-alive\r\n\r\nhello"
        .utf8)
    let interesting: [UInt8] = [0, 9, 10, 13, 32, 58, 44, 48, 127, 255]
    for _ in 0..<3000 {
      var bytes = base
      for _ in 0..<Int.random(in: 1...4, using: &rng) {
        let i = Int.random(in: 0..<bytes.count, using: &rng)
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: bytes[i] = interesting.randomElement(using: &rng) ?? 0
        case 1: bytes.remove(at: i)
        default: bytes.insert(interesting.randomElement(using: &rng) ?? 0, at: i)
        }
        if bytes.isEmpty { break }
      }
      expectTrue(Self.check(bytes, &rng), "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
    }
  }
}
