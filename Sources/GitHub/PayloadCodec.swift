import Digests
import Encodings
import HTTP
import Packing

/// A cache entry as it travels through a shared store: the value with its ETag, when it stops
/// being fresh and when it was stored (Unix seconds).
struct SharedEntry<Value: CachedPayload>: Sendable {
  var payload: Value
  var etag: String?
  var expires: Double
  var storedAt: Double
}

/// The compact, versioned binary form of shared cache entries. Decoding checks every length and
/// count against the API's own bounds, refuses trailing bytes, unknown versions and values of
/// another kind, and returns nil for anything else, so a malformed or foreign value is a cache miss.
/// Avatars are not encoded: they stay in each instance's memory.
enum PayloadCodec {
  /// Leading bytes of every value: "RSC" and the format version. A new layout takes a new version.
  static let magic: [UInt8] = [0x52, 0x53, 0x43, 1]

  /// The byte after `magic` that says which kind of value follows. (3, a stargazer count, is retired.)
  enum Kind: UInt8 {
    case search = 1
    case history = 2
    case visibility = 4
  }

  /// Bounds a decoded value must respect (GitHub's page size caps and generous string limits).
  private static let maxItems = 100
  private static let maxLinks = 8
  private static let maxTopics = 64
  private static let maxWeeks = 1_000
  private static let maxURLBytes = 2_048
  private static let maxTextBytes = 8_192

  /// The bytes for `entry`, or nil for a kind that is not shared (avatars).
  static func encode<Value>(_ entry: SharedEntry<Value>) -> [UInt8]? {
    guard let kind = Value.sharedKind else { return nil }
    var writer = ByteWriter(capacity: 1024)
    writer.raw(magic)
    writer.byte(kind.rawValue)
    writer.signed(milliseconds(entry.storedAt))
    writer.signed(milliseconds(entry.expires))
    writer.optionalString(entry.etag)
    entry.payload.write(to: &writer)
    return writer.bytes
  }

  /// The entry in `bytes`, or nil when they are not a well-formed `Value` of this version.
  static func decode<Value: CachedPayload>(_ bytes: [UInt8], as _: Value.Type) -> SharedEntry<Value>? {
    var reader = ByteReader(bytes)
    guard let kind = Value.sharedKind, let head = reader.raw(magic.count), head.elementsEqual(magic),
      reader.byte() == kind.rawValue,
      let storedAt = reader.signed(), let expires = reader.signed(),
      let etag = reader.optionalString(maxBytes: 512),
      let payload = Value.read(from: &reader), reader.isAtEnd
    else { return nil }
    return SharedEntry(
      payload: payload, etag: etag, expires: Double(expires) / 1000, storedAt: Double(storedAt) / 1000)
  }

  /// Seconds as whole milliseconds, saturating (the clock is injected and may be anything).
  private static func milliseconds(_ seconds: Double) -> Int {
    let value = (seconds * 1000).rounded()
    guard value.isFinite else { return value > 0 ? Int.max : Int.min }
    if value >= Double(Int.max) { return Int.max }
    if value <= Double(Int.min) { return Int.min }
    return Int(value)
  }

  // MARK: - Search pages

  static func write(_ page: SearchPage, to writer: inout ByteWriter) {
    writer.signed(page.totalCount)
    writer.bool(page.incompleteResults)
    writer.signed(page.page)
    writer.signed(page.perPage)
    writer.unsigned(repositoryLayout)
    writer.array(page.links.sorted { $0.key < $1.key }) { writer, link in
      writer.string(link.key)
      writer.string(link.value)
    }
    writer.array(page.items) { writer, item in write(item, to: &writer) }
  }

  static func readSearchPage(_ reader: inout ByteReader) -> SearchPage? {
    guard let total = reader.signed(), total >= 0, let incomplete = reader.bool(),
      let page = reader.signed(), page >= 1, let perPage = reader.signed(), (1...maxItems).contains(perPage),
      reader.unsigned() == repositoryLayout,
      let links = reader.array(
        max: maxLinks,
        { reader -> (String, String)? in
          guard let rel = reader.string(maxBytes: 16), let url = reader.string(maxBytes: maxURLBytes) else {
            return nil
          }
          return (rel, url)
        }),
      let items = reader.array(max: perPage, readRepository)
    else { return nil }
    return SearchPage(
      totalCount: total, incompleteResults: incomplete, items: items,
      links: Dictionary(links, uniquingKeysWith: { $1 }), page: page, perPage: perPage)
  }

  /// The repositories' declared layout, hashed: a page written under another declaration of
  /// `Repository`'s fields is a miss.
  private static let repositoryLayout = FNV1a.hash(Repository.layout.utf8)

  /// Every declared field of `item` (`Repository.Number`, `Flag`, `Text`, the topics), derived from
  /// the declaration: a new field needs nothing here.
  private static func write(_ item: Repository, to writer: inout ByteWriter) {
    writer.record(item.record)
  }

  private static func readRepository(_ reader: inout ByteReader) -> Repository? {
    reader.record(
      numbers: Repository.numberSlots, texts: Repository.Text.allCases.count, maxTextBytes: maxTextBytes,
      maxList: maxTopics, maxListBytes: 256
    ).flatMap(Repository.init(record:))
  }

  // MARK: - Star histories

  static func write(_ history: StarHistory, to writer: inout ByteWriter) {
    writer.array(history.weeks) { writer, week in
      writer.string(week.week)
      writer.signed(week.weekStart)
      writer.signed(week.total)
      writer.array(week.days) { $0.signed($1) }
    }
  }

  static func readHistory(_ reader: inout ByteReader) -> StarHistory? {
    let weeks = reader.array(max: maxWeeks) { reader -> StarWeek? in
      guard let week = reader.string(maxBytes: 32), let start = reader.signed(), let total = reader.signed(),
        let days = reader.array(max: 7, { $0.signed() }), days.count == 7
      else { return nil }
      return StarWeek(week: week, total: total, days: days, weekStart: start)
    }
    return weeks.map { StarHistory(weeks: $0) }
  }
}

extension ByteWriter {
  /// A record: its numbers, its optional texts and its list (read back with `ByteReader.record`).
  mutating func record(_ record: PackedRecord) {
    array(0..<record.numberCount) { $0.signed(record.number($1)) }
    array(0..<record.textCount) { $0.optionalString(record.string($1)) }
    array(0..<record.listCount) { $0.string(record.listString($1)) }
  }
}

extension ByteReader {
  /// A record of exactly `numbers` numbers and `texts` texts (of at most `maxTextBytes` each) and a
  /// list of at most `maxList` elements of at most `maxListBytes` each; nil for anything else, so a
  /// record of another shape (an older layout) is refused.
  mutating func record(
    numbers: Int, texts: Int, maxTextBytes: Int, maxList: Int, maxListBytes: Int
  ) -> PackedRecord? {
    guard texts <= PackedRecord.maxTexts,
      let numberValues = array(max: numbers, { $0.signed() }), numberValues.count == numbers,
      let textValues = array(max: texts, { $0.optionalString(maxBytes: maxTextBytes) }),
      textValues.count == texts,
      let list = array(max: maxList, { $0.string(maxBytes: maxListBytes) })
    else { return nil }
    return PackedRecord(numbers: numberValues, texts: textValues, list: list)
  }
}
