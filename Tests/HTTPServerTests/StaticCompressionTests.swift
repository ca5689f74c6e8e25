import Clocks
import Compression
import Foundation
import HTTP
import TestSupport
import Testing

@testable import HTTPServer

@Suite(.timeLimit(.minutes(3))) struct StaticCompressionTests {
  /// A stylesheet large enough to be worth a gzip form.
  static let css = (0..<80).map { ".card-\($0){margin:0 auto;padding:\($0 % 7)px}\n" }.joined()

  func fixture(time: TimeSource = .system) throws -> (StaticFixture, StaticFiles) {
    let fixture = try StaticFixture()
    try Self.css.write(toFile: fixture.root + "/big.css", atomically: true, encoding: .utf8)
    try Data(repeating: 7, count: 4000).write(to: URL(fileURLWithPath: fixture.root + "/big.png"))
    return (
      fixture, try StaticFiles(root: fixture.root, headers: ["X-Content-Type-Options": "nosniff"], time: time)
    )
  }

  @Test func gzipIsServedOnlyWhenAcceptedWithItsOwnTagAndVary() async throws {
    let (fixture, files) = try fixture()
    let (plain, text) = await fixture.get(files, "/big.css")
    expectEqual(text, Self.css)
    expectEqual(plain.headers["Content-Encoding"], nil)
    expectEqual(plain.headers["Vary"], "Accept-Encoding")
    expectEqual(plain.headers["X-Content-Type-Options"], "nosniff")
    let (packed, _) = await fixture.get(files, "/big.css", headers: ["Accept-Encoding": "br, gzip;q=0.8"])
    expectEqual(packed.headers["Content-Encoding"], "gzip")
    expectEqual(packed.headers["Vary"], "Accept-Encoding")
    expectEqual(packed.headers["Content-Type"], "text/css; charset=utf-8")
    guard case .bytes(let body) = packed.body else {
      Issue.record("expected bytes")
      return
    }
    expectTrue(body.count * 3 < Self.css.utf8.count)
    try expectEqual(gunzip(body, limit: 1 << 20), Array(Self.css.utf8))
    let plainTag = try #require(plain.headers["ETag"])
    let packedTag = try #require(packed.headers["ETag"])
    expectTrue(plainTag != packedTag)
    let refused = await fixture.get(files, "/big.css", headers: ["Accept-Encoding": "*, gzip;q=0"]).0
    expectEqual(refused.headers["Content-Encoding"], nil)
  }

  @Test func revalidationMatchesOnlyTheTagOfTheEncodingSent() async throws {
    let (fixture, files) = try fixture()
    let gz: HTTPHeaders = ["Accept-Encoding": "gzip"]
    let plainTag = try #require(await fixture.get(files, "/big.css").0.headers["ETag"])
    let packedTag = try #require(await fixture.get(files, "/big.css", headers: gz).0.headers["ETag"])
    var conditional = gz
    conditional.add(name: "If-None-Match", value: packedTag)
    let notModified = await fixture.get(files, "/big.css", headers: conditional).0
    expectEqual(notModified.status, .notModified)
    expectEqual(notModified.headers["ETag"], packedTag)
    expectEqual(notModified.headers["Vary"], "Accept-Encoding")
    await expectEqual(fixture.get(files, "/big.css", headers: ["If-None-Match": packedTag]).0.status, .ok)
    await expectEqual(
      fixture.get(files, "/big.css", headers: ["If-None-Match": plainTag]).0.status, .notModified)
  }

  @Test func imagesAndSmallFilesHaveNoGzipForm() async throws {
    let (fixture, files) = try fixture()
    let gz: HTTPHeaders = ["Accept-Encoding": "gzip"]
    let png = await fixture.get(files, "/big.png", headers: gz).0
    expectEqual(png.headers["Content-Encoding"], nil)
    expectEqual(png.headers["Vary"], nil)
    let small = await fixture.get(files, "/css/app.css", headers: gz).0
    expectEqual(small.headers["Content-Encoding"], nil)
  }

  @Test func aChangedFileGetsANewGzipForm() async throws {
    let clock = ManualClock()
    let (fixture, files) = try fixture(time: clock.time)
    let gz: HTTPHeaders = ["Accept-Encoding": "gzip"]
    let before = await fixture.get(files, "/big.css", headers: gz).0
    let changed = Self.css + ".extra{color:red}\n"
    try changed.write(toFile: fixture.root + "/big.css", atomically: true, encoding: .utf8)
    clock.advance(1)  // files are checked on disk again once a second
    let after = await fixture.get(files, "/big.css", headers: gz).0
    expectTrue(after.headers["ETag"] != before.headers["ETag"])
    guard case .bytes(let body) = after.body else {
      Issue.record("expected bytes")
      return
    }
    try expectEqual(gunzip(body, limit: 1 << 20), Array(changed.utf8))
  }

  @Test func overTheWireHeadAndGetAgreeOnLength() async throws {
    let (_, files) = try fixture()
    try await withServer(handler: { request, _ in await files.response(for: request) }) { port in
      let client = try RawSocketClient(port: port)
      let get = try client.request("GET", "/big.css", headers: [("Accept-Encoding", "gzip")])
      let head = try client.request("HEAD", "/big.css", headers: [("Accept-Encoding", "gzip")])
      expectEqual(get.headers["Content-Encoding"], "gzip")
      expectEqual(head.headers["Content-Encoding"], "gzip")
      expectEqual(head.headers["Content-Length"], get.headers["Content-Length"])
      try expectEqual(gunzip(get.body, limit: 1 << 20), Array(Self.css.utf8))
      expectTrue(head.body.isEmpty)
    }
  }
}

@Suite(.timeLimit(.minutes(3))) struct ContentNegotiationTests {
  @Test(
    arguments: [
      ("gzip", true), ("GZIP", true), ("deflate, gzip", true), ("gzip;q=0", false), ("gzip; q=0.000", false),
      ("gzip;q=0.5", true), ("*", true), ("*;q=0", false), ("*, gzip;q=0", false), ("br", false),
      ("identity", false), ("x-gzip", true), ("", false), (" br ,  gzip ", true), ("gzip;level=1", true),
      ("gzip ; q=0 ", false), ("Gzip;Q=0.0", false), ("gzip;q=", true), ("gzip;q=0.001", true),
      (",,gzip,", true),
      ("gzipx", false), ("gzi", false), ("*;q=0.3", true), ("br;q=0, *;q=0", false), ("\tgzip\t", true),
    ])
  func acceptEncoding(_ value: String, _ accepted: Bool) {
    expectEqual(ContentNegotiation.acceptsGzip(["Accept-Encoding": value]), accepted)
  }

  @Test func noAcceptEncodingMeansNoGzip() {
    expectTrue(!ContentNegotiation.acceptsGzip([:]))
  }

  @Test func ifNoneMatchComparesWeakly() {
    let tag = "\"abc-12\""
    expectEqual(ContentNegotiation.ifNoneMatch([:], matches: tag), nil)
    expectEqual(ContentNegotiation.ifNoneMatch(["If-None-Match": tag], matches: tag), true)
    expectEqual(ContentNegotiation.ifNoneMatch(["If-None-Match": "\"x\", W/\(tag)"], matches: tag), true)
    expectEqual(ContentNegotiation.ifNoneMatch(["If-None-Match": "*"], matches: tag), true)
    expectEqual(ContentNegotiation.ifNoneMatch(["If-None-Match": "\"abc-12-gz\""], matches: tag), false)
    expectEqual(ContentNegotiation.gzipETag(tag), "\"abc-12-gz\"")
  }

  @Test func entityTagsFollowTheBytes() {
    var generator = SeededGenerator(state: 11)
    for length in [0, 1, 7, 8, 31, 32, 33, 100, 4097] {
      let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
      let tag = ContentNegotiation.entityTag(for: bytes)
      expectEqual(tag, ContentNegotiation.entityTag(for: bytes))
      expectTrue(tag.hasSuffix("-\(String(length, radix: 16))\""))
      expectEqual(tag.utf8.count, 19 + String(length, radix: 16).utf8.count)
      expectTrue(tag.utf8.dropFirst().prefix(16).allSatisfy { Array("0123456789abcdef".utf8).contains($0) })
      expectEqual(ContentNegotiation.entityTag(for: bytes, gzip: true), ContentNegotiation.gzipETag(tag))
      expectEqual(ContentNegotiation.entityTag(for: bytes, gzip: false), tag)
      for position in Set([0, length / 2, length - 1]) where length > 0 {
        var changed = bytes
        changed[position] ^= 1
        expectTrue(ContentNegotiation.entityTag(for: changed) != tag, "length \(length) flip at \(position)")
      }
    }
  }
}
