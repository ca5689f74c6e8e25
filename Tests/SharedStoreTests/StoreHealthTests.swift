import SharedStore
import TestSupport
import Testing

@Suite("StoreHealth: one change reported per outage, one probe per interval", .timeLimit(.minutes(3)))
struct StoreHealthTests {
  @Test func anOutageIsReportedOnceAndProbedOncePerInterval() {
    var health = StoreHealth(now: 100, retryInterval: 1, failureThreshold: 1)
    let r1 = health.shouldAttempt(now: 100)
    expectTrue(r1)
    let r2 = health.succeeded(now: 100)
    expectEqual(r2, nil)
    let r3 = health.failed("timeout", now: 101)
    expectEqual(r3, .lost("timeout"))
    let r4 = health.failed("timeout", now: 101.1)
    expectEqual(r4, nil)
    expectTrue(!health.available && health.failures == 2 && health.transitions == 1)
    // Skipped until the interval has passed, then exactly one probe.
    let r5 = health.shouldAttempt(now: 101.5)
    expectTrue(!r5)
    let r6 = health.shouldAttempt(now: 102)
    expectTrue(r6)
    let r7 = health.shouldAttempt(now: 102.1)
    expectTrue(!r7)
    let r8 = health.failed("refused", now: 102.2)
    expectEqual(r8, nil)
    let r9 = health.shouldAttempt(now: 103.1)
    expectTrue(r9)
    let r10 = health.succeeded(now: 103.5)
    expectEqual(r10, .recovered(after: 2.5))
    expectTrue(health.available && health.transitions == 2 && health.lastError == "refused")
    let r11 = health.shouldAttempt(now: 103.6)
    expectTrue(r11)
  }

  @Test func aStoreUnreachableAtStartupProbesAtOnce() {
    var health = StoreHealth(available: false, now: 5, retryInterval: 1)
    let r12 = health.shouldAttempt(now: 5)
    expectTrue(r12)
    let r13 = health.shouldAttempt(now: 5.5)
    expectTrue(!r13)
    let r14 = health.succeeded(now: 6)
    expectEqual(r14, .recovered(after: 1))
  }

  @Test func oneSlowCommandIsNotAnOutage() {
    var health = StoreHealth(now: 0, retryInterval: 1)
    let first = health.failed("timeout", now: 1)
    expectTrue(first == nil && health.available)
    let success = health.succeeded(now: 1.1)
    expectEqual(success, nil)
    let again = health.failed("timeout", now: 2)
    expectTrue(again == nil && health.available)
    let second = health.failed("timeout", now: 2.1)
    expectTrue(second == .lost("timeout") && !health.available)
  }
}
