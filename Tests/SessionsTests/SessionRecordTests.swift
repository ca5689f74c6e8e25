import Credentials
import Encodings
import GitHub
import Sealing
import TestSupport
import Testing

@testable import Sessions

/// The sealed record's format: version 2 carries the refresh token and both expiries; version 1
/// (before tokens expired) still opens as a record without expiry; anything else, forged, moved or
/// truncated, does not open.
@Suite("Sessions: the sealed record's format", .timeLimit(.minutes(1)))
struct SessionRecordTests {
  static let reader = ReaderCredential(login: "mona", userID: 7, token: "ghu_access", access: .publicOnly)

  /// Version 1's bytes, written as the code before expiry wrote them.
  static func version1(_ reader: ReaderCredential, created: Int, lastSeen: Int) -> [UInt8] {
    var writer = ByteWriter()
    writer.byte(1)
    writer.signed(reader.userID)
    writer.string(reader.login)
    writer.string(reader.token)
    writer.byte(reader.access.rawValue)
    writer.signed(created)
    writer.signed(lastSeen)
    return writer.bytes
  }

  @Test func aRecordWithExpiryRoundTripsAndHidesItsRefreshToken() {
    let expiry = TokenExpiry(accessExpires: 28_800, refreshToken: "ghr_secret", refreshExpires: 15_897_600)
    let record = SessionRecord(reader: Self.reader, created: 1, lastSeen: 2, expiry: expiry)
    expectEqual(record.encoded.first, 2)
    expectEqual(SessionRecord(encoded: record.encoded), record)
    let plain = SessionRecord(reader: Self.reader, created: 1, lastSeen: 2)
    expectEqual(SessionRecord(encoded: plain.encoded), plain)
    var described = ""
    dump(record, to: &described)
    for text in ["\(record)", "\(expiry)", String(reflecting: expiry), described] {
      expectTrue(!text.contains("ghr_secret"), "\(text)")
    }
  }

  @Test func aVersion1RecordOpensWithoutExpiry() async throws {
    let clock = ManualClock()
    let store = MemorySessionStore(time: clock.time)
    let book = SessionBook(key: .random(), store: store, time: clock.time)
    let session = try await book.create(reader: Self.reader)
    // Rewrite it as version 1 under the same id and key, as an older release stored it.
    let name = book.storeName(session.id)
    let old = Sodium.seal(
      Self.version1(Self.reader, created: clock.now, lastSeen: clock.now), associated: session.id.bytes,
      key: book.key.records)
    let current = try #require(try await store.load(name))
    expectTrue(try await store.replace(name, expected: current, with: old, keepFor: 3600))
    let found = try #require(await book.lookup(cookieValue: session.id.cookieValue[...]).session)
    expectTrue(found.record.reader == Self.reader && found.record.expiry == nil)
    expectEqual(book.policy.tokenVerdict(found.record, now: clock.now + 86_400), .use)
  }

  @Test func otherVersionsTruncatedOrTrailingBytesDoNotOpen() {
    let record = SessionRecord(
      reader: Self.reader, created: 1, lastSeen: 2,
      expiry: TokenExpiry(accessExpires: 3, refreshToken: "ghr_x", refreshExpires: 4))
    let bytes = record.encoded
    for version: UInt8 in [0, 3, 255] {
      var other = bytes
      other[0] = version
      expectEqual(SessionRecord(encoded: other), nil, "version \(version) opened")
    }
    for cut in [1, 10, bytes.count - 1] {
      expectEqual(SessionRecord(encoded: Array(bytes.prefix(cut))), nil, "cut at \(cut) opened")
    }
    expectEqual(SessionRecord(encoded: bytes + [0]), nil)
    // Version 1 bytes with version 2's expiry appended are neither.
    expectEqual(SessionRecord(encoded: Self.version1(Self.reader, created: 1, lastSeen: 2) + [1]), nil)
  }

  @Test func aRecordForgedUnderAnotherKeyOrMovedToAnotherIDEndsNotOpens() async throws {
    let clock = ManualClock()
    let store = MemorySessionStore(time: clock.time)
    let book = SessionBook(key: .random(), store: store, time: clock.time)
    let session = try await book.create(reader: Self.reader)
    let name = book.storeName(session.id)
    let current = try #require(try await store.load(name))
    // An attacker with write access to the store but not the key seals a record of their own.
    let forged = Sodium.seal(
      SessionRecord(reader: Self.reader, created: clock.now, lastSeen: clock.now).encoded,
      associated: session.id.bytes, key: SessionKey.random().records)
    expectTrue(try await store.replace(name, expected: current, with: forged, keepFor: 3600))
    await expectEqual(book.lookup(cookieValue: session.id.cookieValue[...]).outcome, .ended)
  }
}
