import Credentials
import Foundation
import GitHub
import Synchronization
import TestSupport
import Testing

@testable import Sessions

@Suite("Sessions: sealing, lookup and timeouts", .timeLimit(.minutes(1)))
struct SessionBookTests {
  static let token = "gho_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

  func book(_ clock: ManualClock, store: MemorySessionStore? = nil) -> (SessionBook, MemorySessionStore) {
    let store = store ?? MemorySessionStore(time: clock.time)
    return (SessionBook(key: .random(), store: store, time: clock.time), store)
  }

  /// A book on `clock` holding one plain session, its store, and that session.
  func bookWithASession(_ clock: ManualClock) async throws -> (SessionBook, MemorySessionStore, Session) {
    let (book, store) = book(clock)
    let session = try await book.create(userID: 1, login: "a", token: "t", access: .publicOnly)
    return (book, store, session)
  }

  @Test func aCreatedSessionIsFoundByItsCookie() async throws {
    let clock = ManualClock()
    let (book, _) = book(clock)
    let session = try await book.create(userID: 42, login: "octocat", token: Self.token, access: .repoScope)
    let found = try #require(await book.lookup(cookieValue: session.id.cookieValue[...]).session)
    expectEqual(found.record.reader.login, "octocat")
    expectEqual(found.record.reader.token, Self.token)
    expectEqual(found.record.reader.access, .repoScope)
    expectEqual(found.csrfToken, session.csrfToken)
    expectTrue(found.acceptsCSRF(session.csrfToken))
    expectTrue(!found.acceptsCSRF(session.csrfToken + "x"))
    expectTrue(!found.acceptsCSRF(""))
  }

  @Test func idsAreFreshAnd256Bits() async throws {
    let clock = ManualClock()
    let (book, _) = book(clock)
    var seen = Set<String>()
    for _ in 0..<50 {
      let session = try await book.create(userID: 1, login: "a", token: "t", access: .publicOnly)
      expectEqual(session.id.cookieValue.utf8.count, 43)
      seen.insert(session.id.cookieValue)
    }
    expectEqual(seen.count, 50)
  }

  @Test func theStoreHoldsNeitherTokenNorIDNorLogin() async throws {
    let clock = ManualClock()
    let (book, store) = book(clock)
    let session = try await book.create(userID: 42, login: "octocat", token: Self.token, access: .publicOnly)
    let dump = store.dump
    expectEqual(dump.count, 1)
    for (name, sealed) in dump {
      expectTrue(name != session.id.cookieValue)
      expectTrue(!name.contains(session.id.cookieValue))
      for secret in [Self.token, "octocat", session.id.cookieValue] {
        expectTrue(!contains(sealed, Array(secret.utf8)), "\(secret.prefix(4))… found in the store")
      }
    }
  }

  @Test func malformedAndTamperedCookiesAreNotSessions() async throws {
    let clock = ManualClock()
    let (book, _) = book(clock)
    let session = try await book.create(userID: 42, login: "octocat", token: Self.token, access: .publicOnly)
    let good = session.id.cookieValue
    for bad in [
      "", "x", String(good.dropLast()), good + "A", good.replacingOccurrences(of: "-", with: "+"),
      "%00" + good,
    ] {
      let outcome = await book.lookup(cookieValue: bad[...]).outcome
      expectTrue(outcome == .invalid || bad == good, "malformed cookie accepted: \(bad.count) chars")
    }
    // A well-formed id that was never issued (one character changed) has no session.
    var flipped = Array(good.utf8)
    flipped[10] = flipped[10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
    await expectEqual(
      book.lookup(cookieValue: String(decoding: flipped, as: UTF8.self)[...]).outcome, .ended,
      "a tampered id was accepted")
  }

  @Test func aRecordMovedToAnotherIDDoesNotOpen() async throws {
    let clock = ManualClock()
    let (book, store) = book(clock)
    let victim = try await book.create(userID: 1, login: "victim", token: Self.token, access: .publicOnly)
    let attacker = try await book.create(
      userID: 2, login: "attacker", token: "gho_other", access: .publicOnly)
    // The attacker copies the victim's sealed record under their own session's name.
    let sealed = try #require(try await store.load(book.storeName(victim.id)))
    _ = try await store.delete(book.storeName(attacker.id))
    try await store.create(
      sealed, as: book.storeName(attacker.id), account: "attacker", keepFor: 3600,
      limits: SessionLimits(perAccount: 10, total: 100))
    await expectEqual(
      book.lookup(cookieValue: attacker.id.cookieValue[...]).outcome, .ended,
      "a record opened under another id")
  }

  /// A reader seen every `interval` days, `visits` times, who then comes back `gap` days later.
  struct Visits: Sendable, CustomTestStringConvertible {
    let testDescription: String
    let interval: Int
    let visits: Int
    let gap: Int
  }

  @Test(arguments: [
    // Idle is 7 days: seen every 6 days for 24 days, the session stays; then 8 idle days.
    Visits(testDescription: "idle timeout, extended by activity", interval: 6, visits: 4, gap: 8),
    // Absolute is 30 days: seen every 4 days for 28 days, then on day 31.
    Visits(testDescription: "absolute timeout, even for an active session", interval: 4, visits: 7, gap: 3),
  ])
  func aSessionSeenRegularlyEndsAtItsTimeout(_ visits: Visits) async throws {
    let clock = ManualClock()
    let (book, _, session) = try await bookWithASession(clock)
    let cookie = session.id.cookieValue[...]
    for visit in 1...visits.visits {
      clock.advance(visits.interval * 86_400)
      await expectEqual(book.lookup(cookieValue: cookie).outcome, .found, "ended at visit \(visit)")
    }
    clock.advance(visits.gap * 86_400)
    await expectEqual(book.lookup(cookieValue: cookie).outcome, .expired, "lived past the timeout")
    await expectEqual(book.lookup(cookieValue: cookie).outcome, .ended, "an expired session came back")
  }

  @Test func anEndedSessionIsGone() async throws {
    let clock = ManualClock()
    let (book, _, session) = try await bookWithASession(clock)
    try await book.end(session.id)
    await expectEqual(
      book.lookup(cookieValue: session.id.cookieValue[...]).outcome, .ended,
      "a signed-out session was found")
  }

  @Test func anUnavailableStoreIsToldApartFromAMissingSession() async throws {
    let clock = ManualClock()
    let (book, store, session) = try await bookWithASession(clock)
    store.setAvailable(false)
    await expectEqual(
      book.lookup(cookieValue: session.id.cookieValue[...]).outcome, .unavailable,
      "an outage looked like a missing session")
    store.setAvailable(true)
    await expectEqual(
      book.lookup(cookieValue: session.id.cookieValue[...]).outcome, .found,
      "the session did not come back")
  }

  @Test func policyVerdicts() {
    let policy = SessionPolicy()
    let record = SessionRecord(
      reader: ReaderCredential(login: "a", userID: 1, token: "t", access: .publicOnly), created: 1000,
      lastSeen: 1000)
    expectEqual(policy.verdict(record, now: 1000), .valid(touch: false))
    expectEqual(policy.verdict(record, now: 1000 + 3600), .valid(touch: true))
    expectEqual(policy.verdict(record, now: 1000 + 7 * 86_400), .expired)
    expectEqual(policy.verdict(record, now: 0), .expired)  // from the future
    var far = record
    far.lastSeen = Int.max
    expectEqual(policy.verdict(far, now: 1000), .expired)
    // Until the idle timeout, and a week more so that a returning reader has the token revoked.
    expectEqual(policy.keepFor(record, now: 1000), 14 * 86_400)
    expectTrue(policy.keepFor(far, now: 1000) >= 1)
  }
}

/// Whether `needle` occurs in `haystack`.
func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
  guard !needle.isEmpty, haystack.count >= needle.count else { return false }
  for start in 0...(haystack.count - needle.count)
  where haystack[start..<start + needle.count].elementsEqual(needle) {
    return true
  }
  return false
}
