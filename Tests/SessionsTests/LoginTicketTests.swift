import TestSupport
import Testing

@testable import Sessions

@Suite("Login tickets: sealed state, verifier and return path", .timeLimit(.minutes(1)))
struct LoginTicketTests {
  @Test func aTicketOpensUntilItExpires() throws {
    let key = SessionKey.random()
    let ticket = LoginTicket.start(returnTo: "/?q=swift", now: 1000)
    expectEqual(ticket.state.utf8.count, 22)  // 128 bits
    expectEqual(ticket.verifier.utf8.count, 43)  // 256 bits
    let cookie = ticket.sealed(key: key)
    expectTrue(!cookie.contains(ticket.state) && !cookie.contains(ticket.verifier))
    expectEqual(LoginTicket.open(cookie[...], key: key, now: 1000), ticket)
    expectEqual(LoginTicket.open(cookie[...], key: key, now: 1000 + LoginTicket.lifetime), nil)
    expectTrue(ticket.matches(state: ticket.state))
    expectTrue(!ticket.matches(state: String(ticket.state.dropLast())))
  }

  @Test func forgedOrForeignTicketsDoNotOpen() throws {
    let key = SessionKey.random()
    let cookie = LoginTicket.start(returnTo: "/", now: 1000).sealed(key: key)
    expectEqual(LoginTicket.open(cookie[...], key: .random(), now: 1000), nil)
    var bytes = Array(cookie.utf8)
    bytes[bytes.count / 2] =
      bytes[bytes.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
    expectEqual(LoginTicket.open(String(decoding: bytes, as: UTF8.self)[...], key: key, now: 1000), nil)
    for junk in ["", "abc", String(repeating: "A", count: 5000), "!!!!", cookie + "="] {
      expectEqual(LoginTicket.open(junk[...], key: key, now: 1000), nil)
    }
  }

  @Test func keysNeedExactly32Bytes() {
    #expect(throws: SessionKey.LengthError.self) { try SessionKey(bytes: [UInt8](repeating: 1, count: 31)) }
    #expect(throws: SessionKey.LengthError.self) { try SessionKey(bytes: [UInt8](repeating: 1, count: 33)) }
    #expect(throws: Never.self) { try SessionKey(bytes: [UInt8](repeating: 1, count: 32)) }
    expectTrue(!"\(SessionKey.random())".contains("0x"))
  }
}
