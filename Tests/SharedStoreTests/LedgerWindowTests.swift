import TestSupport
import Testing

@testable import SharedStore

@Suite("Ledger window rules", .timeLimit(.minutes(3)))
struct LedgerWindowTests {
  @Test func aSpentWindowRefusesUntilItsResetThenRefills() {
    var window = LedgerWindow(limit: 2, remaining: 1, reset: 100)
    expectEqual(window.refusal(now: 10), nil)
    window.reserve(now: 10)
    expectEqual(window.refusal(now: 10), LedgerRefusal(until: 100, secondary: false))
    window.refund()
    expectEqual(window.remaining, 1)
    window.refund()
    expectEqual(window.remaining, 2, "a refund never exceeds the limit")
    window.block(until: 100, secondary: false)
    expectEqual(window.refusal(now: 100), nil)
    window.reserve(now: 100)
    expectEqual(window.remaining, 1, "a new window starts from the limit")
  }

  @Test func theLowerCountWinsWithinAWindowAndALaterWindowReplaces() {
    var window = LedgerWindow(limit: 30, remaining: 20, reset: 100)
    window.record(limit: 30, remaining: 25, reset: 100)
    expectEqual(window.remaining, 20)
    window.record(limit: 30, remaining: 15, reset: 100)
    expectEqual(window.remaining, 15)
    window.record(limit: 30, remaining: 29, reset: 50)
    expectTrue(window.remaining == 15 && window.reset == 100)
    window.record(limit: 60, remaining: 59, reset: 160)
    expectEqual(window, LedgerWindow(limit: 60, remaining: 59, reset: 160))
  }

  @Test func aSecondaryBlockOnlyExtends() {
    var window = LedgerWindow(limit: 30, remaining: 30, reset: 100)
    window.block(until: 80, secondary: true)
    window.block(until: 60, secondary: true)
    expectEqual(window.refusal(now: 70), LedgerRefusal(until: 80, secondary: true))
    expectEqual(window.refusal(now: 80), nil)
    expectEqual(window.remaining, 30)
  }
}
