import SharedStore
import Testing

@Suite("StoreHealth: one change reported per outage, one probe per interval", .timeLimit(.minutes(3)))
struct StoreHealthTests {
  @Test func anOutageIsReportedOnceAndProbedOncePerInterval() {
    var health = StoreHealth(now: 100, retryInterval: 1, failureThreshold: 1)
    let r1 = health.shouldAttempt(now: 100)
    #expect(r1)
    let r2 = health.succeeded(now: 100)
    #expect(r2 == nil)
    let r3 = health.failed("timeout", now: 101)
    #expect(r3 == .lost("timeout"))
    let r4 = health.failed("timeout", now: 101.1)
    #expect(r4 == nil)
    #expect(!health.available && health.failures == 2 && health.transitions == 1)
    // Skipped until the interval has passed, then exactly one probe.
    let r5 = health.shouldAttempt(now: 101.5)
    #expect(!r5)
    let r6 = health.shouldAttempt(now: 102)
    #expect(r6)
    let r7 = health.shouldAttempt(now: 102.1)
    #expect(!r7)
    let r8 = health.failed("refused", now: 102.2)
    #expect(r8 == nil)
    let r9 = health.shouldAttempt(now: 103.1)
    #expect(r9)
    let r10 = health.succeeded(now: 103.5)
    #expect(r10 == .recovered(after: 2.5))
    #expect(health.available && health.transitions == 2 && health.lastError == "refused")
    let r11 = health.shouldAttempt(now: 103.6)
    #expect(r11)
  }

  @Test func aStoreUnreachableAtStartupProbesAtOnce() {
    var health = StoreHealth(available: false, now: 5, retryInterval: 1)
    let r12 = health.shouldAttempt(now: 5)
    #expect(r12)
    let r13 = health.shouldAttempt(now: 5.5)
    #expect(!r13)
    let r14 = health.succeeded(now: 6)
    #expect(r14 == .recovered(after: 1))
  }

  @Test func oneSlowCommandIsNotAnOutage() {
    var health = StoreHealth(now: 0, retryInterval: 1)
    let first = health.failed("timeout", now: 1)
    #expect(first == nil && health.available)
    let success = health.succeeded(now: 1.1)
    #expect(success == nil)
    let again = health.failed("timeout", now: 2)
    #expect(again == nil && health.available)
    let second = health.failed("timeout", now: 2.1)
    #expect(second == .lost("timeout") && !health.available)
  }
}
