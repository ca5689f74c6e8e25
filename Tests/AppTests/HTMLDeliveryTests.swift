import Compression
import GitHubDouble
import HTTP
import HTTPServer
import TestSupport
import Testing

@testable import App

/// Gzip, validators and `Vary` on the HTML answers, whole and streamed.
@Suite("HTML delivery", .serialized, .timeLimit(.minutes(6)))
struct HTMLDeliveryTests {
  static let fragment = "/fragments/results?q=language%3Apython&after=20"
  static let gzip: HTTPHeaders = ["Accept-Encoding": "gzip, deflate, br"]

  func call(_ h: AppHarness, _ target: String, _ headers: HTTPHeaders = [:], method: HTTPMethod = .get)
    async throws -> (HTTPResponse, [UInt8])
  {
    let response = try await h.app.handler(
      HTTPRequest(method: method, target: target, headers: headers), RequestContext(requestID: "t"))
    switch response.body {
    case .bytes(let bytes): return (response, bytes)
    case .stream(let stream):
      var all: [UInt8] = []
      for try await chunk in stream { all += chunk }
      return (response, all)
    }
  }

  /// The answer to a page whose batch the cache holds: whole, by the cache's state alone.
  func whole(_ h: AppHarness, _ target: String, _ headers: HTTPHeaders) async throws -> (
    HTTPResponse, [UInt8]
  ) {
    try await call(h, target, headers)
  }

  @Test func aFragmentIsGzippedWhenAcceptedWithItsOwnTag() async throws {
    try await AppHarness.with { h in
      let (plain, plainBody) = try await call(h, Self.fragment)
      let (packed, packedBody) = try await call(h, Self.fragment, Self.gzip)
      expectEqual(plain.headers["Content-Encoding"], nil)
      expectEqual(packed.headers["Content-Encoding"], "gzip")
      try expectEqual(gunzip(packedBody, limit: 1 << 22), plainBody)
      expectTrue(packedBody.count * 4 < plainBody.count)
      for response in [plain, packed] {
        expectTrue(response.headers.containsToken("Accept-Encoding", in: "Vary"))
        expectTrue(response.headers.containsToken("Sec-Fetch-Mode", in: "Vary"))
      }
      let plainTag = try #require(plain.headers["ETag"])
      let packedTag = try #require(packed.headers["ETag"])
      expectTrue(plainTag != packedTag)
      expectEqual(HTMLScan.cards(String(decoding: plainBody, as: UTF8.self)).count, 20)
    }
  }

  @Test func prebuiltHeadersMatchTheFieldsOnEveryForm() async throws {
    try await AppHarness.with { h in
      let (plain, _) = try await call(h, Self.fragment)
      let (packed, _) = try await call(h, Self.fragment, Self.gzip)
      var conditional = Self.gzip
      conditional.add(name: "If-None-Match", value: try #require(packed.headers["ETag"]))
      let (notModified, _) = try await call(h, Self.fragment, conditional)
      for response in [plain, packed, notModified] {
        let serialized = try #require(response.serializedHeaders)
        expectEqual(serialized, HTTPResponseSerializer.serialize(response.headers))
        expectTrue(response.headers["Content-Security-Policy"] != nil && response.headers["ETag"] != nil)
      }
      expectTrue(notModified.status == .notModified && packed.headers["Content-Encoding"] == "gzip")
    }
  }

  @Test func aRevalidationWithTheTagIsA304OfTheSameEncoding() async throws {
    try await AppHarness.with { h in
      let (packed, _) = try await call(h, Self.fragment, Self.gzip)
      let packedTag = try #require(packed.headers["ETag"])
      var conditional = Self.gzip
      conditional.add(name: "If-None-Match", value: packedTag)
      let (notModified, body) = try await call(h, Self.fragment, conditional)
      expectEqual(notModified.status, .notModified)
      expectTrue(body.isEmpty)
      expectEqual(notModified.headers["ETag"], packedTag)
      expectTrue(notModified.headers.containsToken("Accept-Encoding", in: "Vary"))
      // The gzip tag does not validate the identity answer.
      let (plain, _) = try await call(h, Self.fragment, ["If-None-Match": packedTag])
      expectEqual(plain.status, .ok)
      let plainTag = try #require(plain.headers["ETag"])
      try await expectEqual(call(h, Self.fragment, ["If-None-Match": plainTag]).0.status, .notModified)
    }
  }

  @Test func headAndGetAgreeOnTheWire() async throws {
    try await AppHarness.with(live: true) { h in
      let port = h.port
      // Blocking socket calls run on their own thread, off the pool the server's tasks need.
      try await onThread {
        let client = try RawSocketClient(port: port)
        for encoding in [[("Accept-Encoding", "gzip")], []] {
          let get = try client.request("GET", Self.fragment, headers: encoding)
          let head = try client.request("HEAD", Self.fragment, headers: encoding)
          expectEqual(get.status, 200)
          expectEqual(head.status, 200)
          expectTrue(head.body.isEmpty)
          expectEqual(head.headers["Content-Length"], get.headers["Content-Length"])
          expectEqual(head.headers["ETag"], get.headers["ETag"])
          expectEqual(head.headers["Content-Encoding"], get.headers["Content-Encoding"])
        }
      }
    }
  }

  @Test func theStreamedPageDecodesToTheSameCards() async throws {
    try await AppHarness.with { h in
      let (plain, plainBody) = try await call(h, "/?q=language%3Apython")
      let (packed, packedBody) = try await call(h, "/?q=language%3Apython", Self.gzip)
      expectEqual(plain.headers["Content-Encoding"], nil)
      expectEqual(packed.headers["Content-Encoding"], "gzip")
      expectTrue(packed.headers.containsToken("Accept-Encoding", in: "Vary"))
      let decoded = String(decoding: try gunzip(packedBody, limit: 1 << 22), as: UTF8.self)
      let cards = HTMLScan.cards(decoded)
      expectEqual(cards.count, 20)
      expectEqual(cards.map(\.id), HTMLScan.cards(String(decoding: plainBody, as: UTF8.self)).map(\.id))
      expectTrue(decoded.hasSuffix("</html>\n") || decoded.hasSuffix("</html>"))
    }
  }

  @Test func aPageTheCacheCanAnswerGoesOutWholeWithAValidator() async throws {
    try await AppHarness.with { h in
      _ = try await call(h, "/?q=language%3Apython")
      let (page, body) = try await whole(h, "/?q=language%3Apython", Self.gzip)
      guard case .bytes = page.body else {
        Issue.record("a cached batch should give a whole page")
        return
      }
      let tag = try #require(page.headers["ETag"])
      expectEqual(HTMLScan.cards(String(decoding: try gunzip(body, limit: 1 << 22), as: UTF8.self)).count, 20)
      var conditional = Self.gzip
      conditional.add(name: "If-None-Match", value: tag)
      try await expectEqual(whole(h, "/?q=language%3Apython", conditional).0.status, .notModified)
      // A reload goes upstream again, so it streams and has no validator.
      let (reload, _) = try await call(h, "/?q=language%3Apython", ["Cache-Control": "max-age=0"])
      expectEqual(reload.headers["ETag"], nil)
    }
  }

  @Test func theCacheStateAloneDecidesWholeOrStreamed() async throws {
    try await AppHarness.with { h in
      // Not cached: streamed, without a validator, whatever the upstream's speed.
      let (first, _) = try await call(h, "/?q=topic%3Acli&sort=stars")
      guard case .stream = first.body else {
        Issue.record("a batch the cache does not hold should stream")
        return
      }
      expectEqual(first.headers["ETag"], nil)
      // Cached: the same request, asked 20 times, gets the same whole page and validator each time.
      var tags: Set<String> = []
      for _ in 0..<20 {
        let (page, _) = try await call(h, "/?q=topic%3Acli&sort=stars")
        guard case .bytes = page.body else {
          Issue.record("a batch the cache holds should give a whole page")
          return
        }
        tags.insert(page.headers["ETag"] ?? "none")
      }
      expectTrue(tags.count == 1 && !tags.contains("none"), "\(tags)")
    }
  }
}

/// Reads a chunked response as it arrives: the head, then whatever the chunks so far hold (gunzipped
/// when the response is gzipped).
struct ChunkedReader {
  struct Failure: Error {}
  var head = ""
  var text = ""
  var ended = false
  private var pending: [UInt8] = []
  private var inBody = false
  private let gunzip: GunzipStream?

  init(gzip: Bool) throws { gunzip = gzip ? try GunzipStream(outputLimit: 1 << 22) : nil }

  mutating func take(_ bytes: [UInt8]) throws {
    pending += bytes
    if !inBody {
      guard let end = Self.find([13, 10, 13, 10], in: pending, from: 0) else { return }
      head = String(decoding: pending[..<end], as: UTF8.self)
      pending.removeFirst(end + 4)
      inBody = true
    }
    // Chunk frames: hex size CRLF data CRLF; a zero size ends the body.
    while let lineEnd = Self.find([13, 10], in: pending, from: 0) {
      guard let size = Int(String(decoding: pending[..<lineEnd], as: UTF8.self), radix: 16) else {
        throw Failure()
      }
      if size == 0 {
        ended = true
        return
      }
      guard pending.count >= lineEnd + 2 + size + 2 else { return }
      let data = Array(pending[(lineEnd + 2)..<(lineEnd + 2 + size)])
      pending.removeFirst(lineEnd + 2 + size + 2)
      text += String(decoding: try gunzip?.decode(data) ?? data, as: UTF8.self)
    }
  }

  static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    for i in start...(haystack.count - needle.count)
    where haystack[i..<(i + needle.count)].elementsEqual(needle) {
      return i
    }
    return nil
  }
}
