import TestSupport
import Testing

@testable import Compression

@Suite("Gzip", .timeLimit(.minutes(2)))
struct GzipTests {
  /// Text with repetition and variety, like an HTML fragment.
  static let text: [UInt8] = Array(
    (0..<400).map {
      "<li class=\"card\" id=\"r\($0)\"><a href=\"/repo/\($0 * 7919 % 1000)\">name \($0)</a></li>\n"
    }
    .joined().utf8)

  @Test("a round trip gives back the input at every level", arguments: [0, 1, 6, 9])
  func roundTrip(level: Int) throws {
    let packed = try gzip(Self.text, level: level)
    expectTrue(packed.starts(with: [0x1F, 0x8B]))
    try expectEqual(gunzip(packed, limit: Self.text.count), Self.text)
    if level > 0 { expectTrue(packed.count * 4 < Self.text.count) }
  }

  @Test("empty input is a valid, empty gzip member")
  func empty() throws {
    let packed = try gzip([])
    expectTrue(
      packed.starts(with: [0x1F, 0x8B]) && packed.count <= 32, "header, an empty block and the trailer")
    try expectEqual(gunzip(packed, limit: 0), [])
  }

  @Test("bytes of every value survive, including a large incompressible body")
  func binary() throws {
    var generator = SeededGenerator(state: 7)
    let noise = (0..<300_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    let packed = try gzip(noise, level: 6)
    try expectEqual(gunzip(packed, limit: noise.count), noise)
  }

  @Test("concatenated members decode to the concatenated inputs")
  func members() throws {
    let a = Array("first ".utf8), b = Array("second".utf8)
    try expectEqual(gunzip(try gzip(a) + gzip(b), limit: 100), a + b)
  }

  @Test("a level outside 0...9 is refused", arguments: [-1, 10])
  func badLevel(level: Int) {
    #expect(throws: CompressionError.invalidLevel(level)) { try gzip([1], level: level) }
    #expect(throws: CompressionError.invalidLevel(level)) { try GzipStream(level: level) }
  }

  @Test("a compression bomb is refused by the output limit, and the limit itself is allowed")
  func bomb() throws {
    let stream = try GzipStream(level: 9)
    let zeros = [UInt8](repeating: 0, count: 1 << 20)
    var packed: [UInt8] = []
    for _ in 0..<64 { packed += try stream.compress(zeros, flush: false) }
    packed += try stream.finish()
    expectTrue(packed.count < 100_000)
    #expect(throws: CompressionError.outputLimitExceeded(limit: 1 << 20)) {
      try gunzip(packed, limit: 1 << 20)
    }
    try expectEqual(gunzip(packed, limit: 64 << 20).count, 64 << 20)
    let small = try gzip(Array(repeating: 65, count: 1000))
    try expectEqual(gunzip(small, limit: 1000).count, 1000)
    #expect(throws: CompressionError.outputLimitExceeded(limit: 999)) { try gunzip(small, limit: 999) }
  }

  @Test("truncated input is reported as truncated at every cut")
  func truncated() throws {
    let packed = try gzip(Self.text)
    for cut in [1, 10, packed.count / 2, packed.count - 1] {
      #expect(throws: CompressionError.truncatedInput) { try gunzip(Array(packed[..<cut]), limit: 1 << 20) }
    }
    #expect(throws: CompressionError.truncatedInput) { try gunzip([], limit: 10) }
  }

  @Test("a bad header, bad data or a wrong checksum is corrupt input")
  func corrupt() throws {
    let packed = try gzip(Self.text)
    var header = packed
    header[0] = 0x1E
    #expect(throws: CompressionError.corruptInput) { try gunzip(header, limit: 1 << 20) }
    var checksum = packed
    checksum[packed.count - 6] ^= 0xFF
    #expect(throws: CompressionError.corruptInput) { try gunzip(checksum, limit: 1 << 20) }
    #expect(throws: CompressionError.corruptInput) { try gunzip(Array("plain text".utf8), limit: 1 << 20) }
  }
}

@Suite("Gzip through zlib", .timeLimit(.minutes(2)))
struct ZlibGzipTests {
  @Test("the zlib path for whole buffers round-trips like the libdeflate one", arguments: [1, 9])
  func fallback(level: Int) throws {
    let packed = try zlibGzip(GzipTests.text, level: level)
    try expectEqual(gunzip(packed, limit: GzipTests.text.count), GzipTests.text)
    try expectEqual(gunzip(try zlibGzip([], level: level), limit: 0), [])
  }
}
