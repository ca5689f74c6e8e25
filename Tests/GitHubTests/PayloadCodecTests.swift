import TestSupport
import Testing

@_spi(PackedFields) @testable import GitHub

@Suite(
  "Shared cache encoding: round trips, and malformed or foreign bytes are misses", .timeLimit(.minutes(3))
)
struct PayloadCodecTests {
  /// A repository with every declared field set (owner ones nil without `owner`), absent and
  /// empty texts mixed in by `id`.
  static func repository(_ id: Int, owner: Bool = true) -> Repository {
    Repository(
      number: { field in field == .ownerID && !owner ? 0 : id * 1000 + field.rawValue - 500 },
      flag: { field in field == .hasOwner ? owner : (id + field.rawValue).isMultiple(of: 3) },
      text: { field in
        let ownerField = [.ownerLogin, .ownerAvatarURL, .ownerHTMLURL, .ownerType].contains(field)
        if ownerField && !owner { return nil }
        switch (id + field.rawValue) % 4 {
        case 0: return nil
        case 1: return ""
        default: return "<b>\(field) \(id)</b> \"zoë\" 🚀"
        }
      }, topics: id.isMultiple(of: 2) ? [] : ["cli", "日本語"])
  }

  @Test func everyDeclaredFieldRoundTrips() throws {
    let entry = try #require(PayloadCodec.decode(Self.encoded(Self.page), as: SearchPage.self))
    for (decoded, original) in zip(entry.payload.items, Self.page.items) {
      for field in Repository.Number.allCases { expectEqual(decoded[field], original[field], "\(field)") }
      for field in Repository.Flag.allCases { expectEqual(decoded[field], original[field], "\(field)") }
      for field in Repository.Text.allCases { expectEqual(decoded[field], original[field], "\(field)") }
      expectEqual(decoded.topics, original.topics)
    }
    // Every field took an absent, an empty and a present value somewhere on the page.
    for field in Repository.Text.allCases {
      let values = Set(Self.page.items.map { $0[field].map { $0.isEmpty ? "empty" : "text" } ?? "nil" })
      expectEqual(values, ["nil", "empty", "text"], "\(field)")
    }
  }

  static let page = SearchPage(
    totalCount: 4242, incompleteResults: true,
    items: (1...30).map { repository($0, owner: $0 != 9) },
    links: ["next": "https://api.github.com/search/repositories?q=a&page=3", "prev": "https://x/1"], page: 2,
    perPage: 30)

  static let history = StarHistory(weeks: [
    StarWeek(weekStart: 1_754_784_000, total: 19, days: [0, 12, 7, 0, 0, 0, 0]),
    StarWeek(weekStart: 1_754_179_200, total: 3, days: [1, 1, 1, 0, 0, 0, 0]),
  ])

  static func encoded<Value: CachedPayload>(_ payload: Value, etag: String? = "W/\"abc\"") -> [UInt8] {
    PayloadCodec.encode(
      SharedEntry(payload: payload, etag: etag, expires: 1_700_000_060.5, storedAt: 1_700_000_000))
      ?? []
  }

  @Test func searchPageRoundTrips() throws {
    let bytes = Self.encoded(Self.page)
    let entry = try #require(PayloadCodec.decode(bytes, as: SearchPage.self))
    let page = entry.payload
    expectEqual(page.items, Self.page.items)
    expectEqual(page.links, Self.page.links)
    expectTrue(page.totalCount == 4242 && page.incompleteResults && page.page == 2 && page.perPage == 30)
    expectEqual(entry.etag, "W/\"abc\"")
    expectTrue(entry.expires == 1_700_000_060.5 && entry.storedAt == 1_700_000_000)
    // Compact: far smaller than the JSON GitHub sends for 30 items (about 160 KB), though every
    // field of the fixture is filled.
    expectTrue(bytes.count < 30 * 700)
  }

  @Test func historyRoundTrips() throws {
    let history = try #require(
      PayloadCodec.decode(Self.encoded(Self.history, etag: nil), as: StarHistory.self))
    expectEqual(history.payload.weeks, Self.history.weeks)
    expectEqual(history.etag, nil)
  }

  @Test func aValueOfAnotherKindIsNotDecoded() {
    expectTrue(PayloadCodec.decode(Self.encoded(Self.history), as: SearchPage.self) == nil)
    expectTrue(PayloadCodec.decode(Self.encoded(Self.page), as: StarHistory.self) == nil)
  }

  @Test func avatarsAreNotShared() {
    let avatar = Avatar(bytes: [1, 2, 3], contentType: "image/png", etag: nil)
    expectEqual(PayloadCodec.encode(SharedEntry(payload: avatar, etag: nil, expires: 0, storedAt: 0)), nil)
    expectTrue(PayloadCodec.decode(PayloadCodec.magic + [0], as: Avatar.self) == nil)
  }

  @Test func everyTruncationAndTrailingByteIsRejected() {
    for (bytes, decodes) in [
      (Self.encoded(Self.page), { PayloadCodec.decode($0, as: SearchPage.self) != nil }),
      (
        Self.encoded(Self.history),
        { (bytes: [UInt8]) in PayloadCodec.decode(bytes, as: StarHistory.self) != nil }
      ),
    ] {
      expectTrue(!bytes.isEmpty)
      expectTrue(decodes(bytes))
      for length in 0..<bytes.count {
        expectTrue(!decodes(Array(bytes.prefix(length))), "prefix \(length) accepted")
      }
      expectTrue(!decodes(bytes + [0]))
    }
  }

  @Test func foreignValuesAreRejected() {
    var otherVersion = Self.encoded(Self.history)
    otherVersion[3] = 2
    let foreign: [[UInt8]] = [
      [], Array("hello".utf8), Array("{\"total_count\":1,\"items\":[]}".utf8), otherVersion,
      PayloadCodec.magic + [9],  // unknown kind
      PayloadCodec.magic + [3, 0, 0, 0] + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],
    ]
    for value in foreign {
      expectTrue(PayloadCodec.decode(value, as: SearchPage.self) == nil)
      expectTrue(PayloadCodec.decode(value, as: StarHistory.self) == nil)
    }
  }

  @Test func outOfBoundsCountsAndInvalidTextAreRejected() {
    // A page claiming more items than its page size.
    var tooMany = Self.page
    tooMany.perPage = 5
    tooMany.items = Array(tooMany.items.prefix(6))
    expectTrue(PayloadCodec.decode(Self.encoded(tooMany), as: SearchPage.self) == nil)
    // A week with six days.
    let sixDays = StarHistory(weeks: [StarWeek(weekStart: 0, total: 1, days: [1, 0, 0, 0, 0, 0])])
    expectTrue(PayloadCodec.decode(Self.encoded(sixDays), as: StarHistory.self) == nil)
    // Invalid UTF-8 in the ETag.
    var bytes = Self.encoded(StarHistory(weeks: []), etag: "ab")
    expectTrue(PayloadCodec.decode(bytes, as: StarHistory.self) != nil)
    if let index = bytes.lastIndex(of: UInt8(ascii: "a")) { bytes[index] = 0xC0 }
    expectTrue(PayloadCodec.decode(bytes, as: StarHistory.self) == nil)
  }

  @Test func randomAndMutatedBytesNeverCrash() {
    var generator = SeededGenerator(state: 11)
    let valid = Self.encoded(Self.page)
    var accepted = 0
    for round in 0..<2_000 {
      var bytes: [UInt8]
      if round.isMultiple(of: 2) {
        bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in
          UInt8.random(in: 0...255, using: &generator)
        }
      } else {
        bytes = valid
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
          bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(
            in: 0...255, using: &generator)
        }
      }
      if PayloadCodec.decode(bytes, as: SearchPage.self) != nil { accepted += 1 }
    }
    // Mutations inside string bytes can still decode; random junk must not.
    expectTrue(accepted < 1_000)
  }
}
