import GitHubDouble
import HTTP
import TestSupport
import Testing

/// A strict reader for the PNGs the double writes: checks every chunk CRC, inflates stored blocks,
/// checks Adler-32 and returns width, height and scanlines.
struct PNGReader {
  struct Failure: Error, CustomStringConvertible { let description: String }

  let width: Int
  let height: Int
  let pixels: [UInt8]

  init(_ png: [UInt8]) throws {
    guard png.count > 8, Array(png[0..<8]) == PNGEncoder.signature else {
      throw Failure(description: "signature")
    }
    var i = 8
    var chunks: [(String, [UInt8])] = []
    func be32(_ at: Int) -> Int {
      Int(png[at]) << 24 | Int(png[at + 1]) << 16 | Int(png[at + 2]) << 8 | Int(png[at + 3])
    }
    while i + 12 <= png.count {
      let length = be32(i)
      guard i + 12 + length <= png.count else { throw Failure(description: "chunk overruns") }
      let typeAndData = Array(png[(i + 4)..<(i + 8 + length)])
      var crc = CRC32()
      crc.update(typeAndData)
      guard UInt32(be32(i + 8 + length)) == crc.value else { throw Failure(description: "bad CRC") }
      chunks.append((String(decoding: typeAndData[0..<4], as: UTF8.self), Array(typeAndData[4...])))
      i += 12 + length
    }
    guard i == png.count, chunks.first?.0 == "IHDR", chunks.last?.0 == "IEND" else {
      throw Failure(description: "chunk layout")
    }
    let ihdr = chunks[0].1
    width = Int(ihdr[0]) << 24 | Int(ihdr[1]) << 16 | Int(ihdr[2]) << 8 | Int(ihdr[3])
    height = Int(ihdr[4]) << 24 | Int(ihdr[5]) << 16 | Int(ihdr[6]) << 8 | Int(ihdr[7])
    guard Array(ihdr[8...]) == [8, 2, 0, 0, 0] else { throw Failure(description: "IHDR format") }
    let z = chunks.filter { $0.0 == "IDAT" }.flatMap(\.1)
    guard z.count >= 6, (Int(z[0]) << 8 | Int(z[1])) % 31 == 0 else {
      throw Failure(description: "zlib header")
    }
    var raw: [UInt8] = []
    var p = 2
    while true {
      let header = z[p]
      guard header & 0b110 == 0 else { throw Failure(description: "not a stored block") }
      let len = Int(z[p + 1]) | Int(z[p + 2]) << 8
      let nlen = Int(z[p + 3]) | Int(z[p + 4]) << 8
      guard len ^ 0xFFFF == nlen else { throw Failure(description: "LEN/NLEN") }
      raw += z[(p + 5)..<(p + 5 + len)]
      p += 5 + len
      if header & 1 == 1 { break }
    }
    let adler = UInt32(z[p]) << 24 | UInt32(z[p + 1]) << 16 | UInt32(z[p + 2]) << 8 | UInt32(z[p + 3])
    guard adler == PNGEncoder.adler32(raw), p + 4 == z.count else { throw Failure(description: "Adler-32") }
    guard raw.count == height * (1 + width * 3) else { throw Failure(description: "scanline size") }
    pixels = raw
  }
}

@Suite("Avatars", .timeLimit(.minutes(3)))
struct AvatarTests {
  let double = Fixtures.shared

  @Test(
    "identicons decode at the requested size, clamped to 1…460",
    arguments: [
      (40, 40), (1, 1), (0, 1), (460, 460), (2000, 460), (-5, 1),
    ])
  func sizes(requested: Int, expected: Int) async throws {
    let r = try await double.get("/u/\(double.catalog.owners[5].id)?s=\(requested)&v=4")
    expectEqual(r.status, .ok)
    expectEqual(r.headers["Content-Type"], "image/png")
    let png = try PNGReader(r.bytes)
    expectTrue(png.width == expected && png.height == expected)
  }

  @Test("default size is 460; same id same image, different ids differ; ETag revalidates")
  func caching() async throws {
    let a = try await double.get("/u/1234")
    try expectEqual(PNGReader(a.bytes).width, 460)
    let b = try await double.get("/u/1234?s=64")
    let c = try await double.get("/u/1234?s=64")
    let d = try await double.get("/u/98765?s=64")
    expectEqual(b.bytes, c.bytes)
    expectTrue(b.bytes != d.bytes)
    expectEqual(b.headers["Cache-Control"], "max-age=300")
    let etag = try #require(b.headers["ETag"])
    let again = try await double.get("/u/1234?s=64", headers: ["If-None-Match": etag])
    expectEqual(again.status, .notModified)
    expectTrue(again.bytes.isEmpty)
  }

  @Test("the reader rejects a corrupted CRC")
  func corrupt() async throws {
    var bytes = try await double.get("/u/77?s=8").bytes
    bytes[20] ^= 0xFF
    #expect(throws: PNGReader.Failure.self) { try PNGReader(bytes) }
  }

  @Test("non-numeric ids are 404")
  func notFound() async throws {
    try await expectEqual(double.get("/u/abc").status, .notFound)
  }
}
