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
    let store = store ?? MemorySessionStore(now: { clock.now })
    return (SessionBook(key: .random(), store: store, now: { clock.now }), store)
  }

  @Test func aCreatedSessionIsFoundByItsCookie() async throws {
    let clock = ManualClock()
    let (book, _) = book(clock)
    let session = try await book.create(userID: 42, login: "octocat", token: Self.token, seesPrivate: true)
    guard case .found(let found) = await book.lookup(cookieValue: session.id.cookieValue[...]) else {
      Issue.record("session not found")
      return
    }
    #expect(found.record.reader.login == "octocat")
    #expect(found.record.reader.token == Self.token)
    #expect(found.record.reader.seesPrivate)
    #expect(found.csrfToken == session.csrfToken)
    #expect(found.acceptsCSRF(session.csrfToken))
    #expect(!found.acceptsCSRF(session.csrfToken + "x"))
    #expect(!found.acceptsCSRF(""))
  }

  @Test func idsAreFreshAnd256Bits() async throws {
    let clock = ManualClock()
    let (book, _) = book(clock)
    var seen = Set<String>()
    for _ in 0..<50 {
      let session = try await book.create(userID: 1, login: "a", token: "t", seesPrivate: false)
      #expect(session.id.cookieValue.utf8.count == 43)
      seen.insert(session.id.cookieValue)
    }
    #expect(seen.count == 50)
  }

  @Test func theStoreHoldsNeitherTokenNorIDNorLogin() async throws {
    let clock = ManualClock()
    let (book, store) = book(clock)
    let session = try await book.create(userID: 42, login: "octocat", token: Self.token, seesPrivate: false)
    let dump = store.dump
    #expect(dump.count == 1)
    for (name, sealed) in dump {
      #expect(name != session.id.cookieValue)
      #expect(!name.contains(session.id.cookieValue))
      for secret in [Self.token, "octocat", session.id.cookieValue] {
        #expect(!contains(sealed, Array(secret.utf8)), "\(secret.prefix(4))… found in the store")
      }
    }
  }

  @Test func malformedAndTamperedCookiesAreNotSessions() async throws {
    let clock = ManualClock()
    let (book, _) = book(clock)
    let session = try await book.create(userID: 42, login: "octocat", token: Self.token, seesPrivate: false)
    let good = session.id.cookieValue
    for bad in [
      "", "x", String(good.dropLast()), good + "A", good.replacingOccurrences(of: "-", with: "+"),
      "%00" + good,
    ] {
      guard case .invalid = await book.lookup(cookieValue: bad[...]) else {
        if bad != good { Issue.record("malformed cookie accepted: \(bad.count) chars") }
        continue
      }
    }
    // A well-formed id that was never issued (one character changed) has no session.
    var flipped = Array(good.utf8)
    flipped[10] = flipped[10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
    guard case .ended = await book.lookup(cookieValue: String(decoding: flipped, as: UTF8.self)[...]) else {
      Issue.record("a tampered id was accepted")
      return
    }
  }

  @Test func aRecordMovedToAnotherIDDoesNotOpen() async throws {
    let clock = ManualClock()
    let (book, store) = book(clock)
    let victim = try await book.create(userID: 1, login: "victim", token: Self.token, seesPrivate: false)
    let attacker = try await book.create(userID: 2, login: "attacker", token: "gho_other", seesPrivate: false)
    // The attacker copies the victim's sealed record under their own session's name.
    let sealed = try #require(try await store.load(book.storeName(victim.id)))
    try await store.save(sealed, as: book.storeName(attacker.id), keepFor: 3600)
    guard case .ended = await book.lookup(cookieValue: attacker.id.cookieValue[...]) else {
      Issue.record("a record opened under another id")
      return
    }
  }

  @Test func idleTimeoutEndsASessionAndActivityExtendsIt() async throws {
    let clock = ManualClock()
    let (book, _) = book(clock)
    let session = try await book.create(userID: 1, login: "a", token: "t", seesPrivate: false)
    let cookie = session.id.cookieValue[...]
    // Seen every 6 days for 24 days: still valid (idle is 7 days).
    for _ in 0..<4 {
      clock.advance(6 * 86_400)
      guard case .found = await book.lookup(cookieValue: cookie) else {
        Issue.record("an active session ended")
        return
      }
    }
    // Then 8 idle days.
    clock.advance(8 * 86_400)
    guard case .ended = await book.lookup(cookieValue: cookie) else {
      Issue.record("an idle session lived on")
      return
    }
  }

  @Test func absoluteTimeoutEndsEvenAnActiveSession() async throws {
    let clock = ManualClock()
    let (book, _) = book(clock)
    let session = try await book.create(userID: 1, login: "a", token: "t", seesPrivate: false)
    let cookie = session.id.cookieValue[...]
    for _ in 0..<7 {
      clock.advance(4 * 86_400)
      guard case .found = await book.lookup(cookieValue: cookie) else {
        Issue.record("ended before 30 days")
        return
      }
    }
    clock.advance(3 * 86_400)  // day 31
    guard case .ended = await book.lookup(cookieValue: cookie) else {
      Issue.record("lived past the absolute timeout")
      return
    }
  }

  @Test func anEndedSessionIsGone() async throws {
    let clock = ManualClock()
    let (book, _) = book(clock)
    let session = try await book.create(userID: 1, login: "a", token: "t", seesPrivate: false)
    try await book.end(session.id)
    guard case .ended = await book.lookup(cookieValue: session.id.cookieValue[...]) else {
      Issue.record("a signed-out session was found")
      return
    }
  }

  @Test func anUnavailableStoreIsToldApartFromAMissingSession() async throws {
    let clock = ManualClock()
    let (book, store) = book(clock)
    let session = try await book.create(userID: 1, login: "a", token: "t", seesPrivate: false)
    store.setAvailable(false)
    guard case .unavailable = await book.lookup(cookieValue: session.id.cookieValue[...]) else {
      Issue.record("an outage looked like a missing session")
      return
    }
    store.setAvailable(true)
    guard case .found = await book.lookup(cookieValue: session.id.cookieValue[...]) else {
      Issue.record("the session did not come back")
      return
    }
  }

  @Test func policyVerdicts() {
    let policy = SessionPolicy()
    let record = SessionRecord(
      reader: ReaderCredential(login: "a", userID: 1, token: "t", seesPrivate: false), created: 1000,
      lastSeen: 1000)
    #expect(policy.verdict(record, now: 1000) == .valid(touch: false))
    #expect(policy.verdict(record, now: 1000 + 3600) == .valid(touch: true))
    #expect(policy.verdict(record, now: 1000 + 7 * 86_400) == .expired)
    #expect(policy.verdict(record, now: 0) == .expired)  // from the future
    var far = record
    far.lastSeen = Int.max
    #expect(policy.verdict(far, now: 1000) == .expired)
    #expect(policy.keepFor(record, now: 1000) == 7 * 86_400)
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
