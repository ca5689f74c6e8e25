import Redis
import TestSupport
import Testing

/// The pure reply parser, from plain bytes.
@Suite(.timeLimit(.minutes(3))) struct RESPParserTests {
  /// Every reply a parser gives for `bytes` fed in `chunks`-sized pieces, and the error it ended with.
  static func parse(
    _ bytes: [UInt8], chunk: Int = .max, limits: RESPParserLimits = RESPParserLimits()
  ) -> (values: [RESPValue], error: RESPProtocolError?) {
    var parser = RESPParser(limits: limits)
    var values: [RESPValue] = []
    var index = 0
    repeat {
      let end = min(bytes.count, index + max(1, min(chunk, bytes.count - index)))
      parser.append(contentsOf: bytes[index..<end])
      index = end
      do {
        while let value = try parser.next() { values.append(value) }
      } catch {
        return (values, error)
      }
    } while index < bytes.count
    return (values, nil)
  }

  static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

  static let sample = bytes(
    "+OK\r\n-ERR no\r\n:-42\r\n$5\r\nhe\r\no\r\n$0\r\n\r\n$-1\r\n*-1\r\n*0\r\n"
      + "*3\r\n:1\r\n*2\r\n$1\r\nx\r\n*1\r\n+deep\r\n*0\r\n")
  static let sampleValues: [RESPValue] = [
    .simpleString("OK"), .error("ERR no"), .integer(-42), .bulkString(bytes("he\r\no")), .bulkString([]),
    .null,
    .null, .array([]),
    .array([.integer(1), .array([.bulkString(bytes("x")), .array([.simpleString("deep")])]), .array([])]),
  ]

  @Test func parsesEveryTypeWhetherFedAtOnceOrInPieces() {
    for chunk in [Int.max, 1, 2, 3, 7] {
      let (values, error) = Self.parse(Self.sample, chunk: chunk)
      expectEqual(error, nil)
      expectEqual(values, Self.sampleValues, "chunk \(chunk)")
    }
  }

  @Test func splittingAtEveryByteGivesTheSameReplies() {
    var generator = SeededGenerator(state: 11)
    for split in 0...Self.sample.count {
      var parser = RESPParser()
      var values: [RESPValue] = []
      parser.append(contentsOf: Self.sample[..<split])
      while let value = try? parser.next() { values.append(value) }
      parser.append(contentsOf: Self.sample[split...])
      while let value = try? parser.next() { values.append(value) }
      expectEqual(values, Self.sampleValues, "split at \(split)")
      expectTrue(!parser.isMidReply)
    }
    // Random chunkings of a long pipeline of replies.
    let many = Array((0..<200).map { _ in Self.sample }.joined())
    let expected = Array((0..<200).map { _ in Self.sampleValues }.joined())
    for _ in 0..<5 {
      expectEqual(Self.parse(many, chunk: Int.random(in: 1...97, using: &generator)).values, expected)
    }
  }

  @Test func waitsForIncompleteRepliesWithoutConsumingThem() throws {
    var parser = RESPParser()
    parser.append(contentsOf: Self.bytes("*2\r\n:1\r\n$3\r\nab"))
    try expectEqual(parser.next(), nil)
    expectTrue(parser.isMidReply)
    parser.append(contentsOf: Self.bytes("c\r"))
    try expectEqual(parser.next(), nil)
    parser.append(contentsOf: Self.bytes("\n"))
    try expectEqual(parser.next(), .array([.integer(1), .bulkString(Self.bytes("abc"))]))
    expectTrue(!parser.isMidReply)
    expectEqual(parser.bufferedByteCount, 0)
  }

  @Test func largeBulkStringArrivingInChunks() {
    var payload = [UInt8](repeating: UInt8(ascii: "x"), count: 3 << 20)
    for index in stride(from: 0, to: payload.count, by: 4099) {
      payload[index] = UInt8(truncatingIfNeeded: index)
    }
    let wire = Self.bytes("$\(payload.count)\r\n") + payload + Self.bytes("\r\n+after\r\n")
    let (values, error) = Self.parse(wire, chunk: 64 * 1024)
    expectEqual(error, nil)
    expectEqual(values, [.bulkString(payload), .simpleString("after")])
  }

  @Test func rejectsMalformedFraming() {
    let cases: [(String, RESPProtocolError)] = [
      ("?what\r\n", .unknownType(UInt8(ascii: "?"))),
      ("\r\n", .unknownType(13)),
      ("+bare\nlf\r\n", .badFraming),
      ("+cr\rx\r\n", .badFraming),
      ("$3\r\nabcd\r\n", .badFraming),
      (":12a\r\n", .badNumber),
      (":\r\n", .badNumber),
      (":-\r\n", .badNumber),
      (":99999999999999999999\r\n", .badNumber),
      (":9223372036854775808\r\n", .badNumber),
      ("$-2\r\n", .negativeLength),
      ("*-5\r\n", .negativeLength),
      ("$+3\r\nabc\r\n", .badNumber),
    ]
    for (wire, expected) in cases {
      expectEqual(Self.parse(Self.bytes(wire)).error, expected, "\(wire.debugDescription)")
      expectEqual(
        Self.parse(Self.bytes(wire), chunk: 1).error, expected, "byte-wise \(wire.debugDescription)")
    }
    expectEqual(Self.parse(Self.bytes(":9223372036854775807\r\n")).values, [.integer(.max)])
  }

  @Test func enforcesEveryLimit() {
    let small = RESPParserLimits(
      maxLineLength: 16, maxBulkLength: 8, maxArrayLength: 4, maxDepth: 3, maxReplyElements: 10,
      maxReplyBytes: 40)
    let cases: [(String, RESPProtocolError)] = [
      ("+" + String(repeating: "a", count: 17) + "\r\n", .lineTooLong(limit: 16)),
      ("$9\r\n123456789\r\n", .bulkTooLong(length: 9, limit: 8)),
      ("*5\r\n", .arrayTooLong(count: 5, limit: 4)),
      ("*1\r\n*1\r\n*1\r\n*1\r\n", .tooDeep(limit: 3)),
      // Found by the fuzzer: an empty array one level below the deepest allowed frame.
      ("*1\r\n*1\r\n*1\r\n*0\r\n", .tooDeep(limit: 3)),
      ("*4\r\n*4\r\n:1\r\n:1\r\n:1\r\n:1\r\n*4\r\n:1\r\n:1\r\n:1\r\n:1\r\n", .replyTooLarge),
      ("*4\r\n$8\r\n12345678\r\n$8\r\n12345678\r\n$8\r\n12345678\r\n$8\r\n12345678\r\n", .replyTooLarge),
    ]
    for (wire, expected) in cases {
      expectEqual(Self.parse(Self.bytes(wire), limits: small).error, expected, "\(wire.debugDescription)")
      expectEqual(Self.parse(Self.bytes(wire), chunk: 1, limits: small).error, expected, "byte-wise")
    }
    // A line with no CRLF is refused as soon as it passes the limit, before any end arrives.
    expectEqual(
      Self.parse(Self.bytes("+" + String(repeating: "a", count: 40)), limits: small).error,
      .lineTooLong(limit: 16))
    // Exactly at the limits is fine, and the budgets start again with each reply.
    let atLimit =
      "+" + String(repeating: "a", count: 16) + "\r\n$8\r\n12345678\r\n*4\r\n:1\r\n:2\r\n:3\r\n:4\r\n"
    let (values, error) = Self.parse(Self.bytes(atLimit + atLimit), limits: small)
    expectEqual(error, nil)
    expectEqual(values.count, 6)
  }

  @Test func announcedSizesAloneAllocateNothingLarge() {
    // A hostile length header costs nothing until the bytes really arrive.
    var parser = RESPParser()
    parser.append(contentsOf: Self.bytes("*1048576\r\n$67108864\r\n"))
    expectEqual((try? parser.next()), .some(nil))
    expectEqual(parser.bufferedByteCount, 0)
  }

  @Test func staysFailedAfterAnError() {
    var parser = RESPParser()
    parser.append(contentsOf: Self.bytes("!x\r\n+OK\r\n"))
    #expect(throws: RESPProtocolError.unknownType(UInt8(ascii: "!"))) { try parser.next() }
    #expect(throws: RESPProtocolError.unknownType(UInt8(ascii: "!"))) { try parser.next() }
  }

  @Test func encodesCommandsAsArraysOfBulkStrings() {
    var out: [UInt8] = []
    RedisCommand("SET", "k", .bytes([0, 13, 10]), "PX", 500).encode(into: &out)
    expectEqual(
      out,
      Self.bytes("*5\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\n") + [0, 13, 10]
        + Self.bytes("\r\n$2\r\nPX\r\n$3\r\n500\r\n"))
    expectEqual(RedisCommand("auth", "secret").description, "AUTH")
  }
}
