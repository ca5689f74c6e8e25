import TestSupport
import Testing

@testable import Redis

/// The pool's bookkeeping, driven with plain values and a hand-moved clock.
@Suite(.timeLimit(.minutes(3))) struct RedisPoolStateTests {
  typealias State = RedisPoolState<String, Int>

  @Test func opensUpToTheBoundThenQueuesThenFailsFast() {
    var pool = State(size: 2, maxWaiters: 2, reconnectDelay: 100)
    guard case .open = pool.acquire(waiter: 1, now: 0, deadline: 50) else { return expectTrue(Bool(false)) }
    guard case .open = pool.acquire(waiter: 2, now: 0, deadline: 50) else { return expectTrue(Bool(false)) }
    guard case .wait = pool.acquire(waiter: 3, now: 0, deadline: 50) else { return expectTrue(Bool(false)) }
    guard case .wait = pool.acquire(waiter: 4, now: 0, deadline: 60) else { return expectTrue(Bool(false)) }
    guard case .fail(.poolExhausted) = pool.acquire(waiter: 5, now: 0, deadline: 60) else {
      return expectTrue(Bool(false))
    }
    expectEqual(pool.opened, 2)
    // A returned connection goes to the first waiter, in order.
    guard case .give(3, "a") = pool.release("a", reusable: true, now: 10) else {
      return expectTrue(Bool(false))
    }
    // Waiters past their deadline expire; the others stay.
    expectEqual(pool.expire(now: 59), [])
    expectEqual(pool.expire(now: 60), [4])
    expectEqual(pool.waiting, 0)
    guard case .none = pool.release("a", reusable: true, now: 70) else { return expectTrue(Bool(false)) }
    guard case .use("a") = pool.acquire(waiter: 6, now: 70, deadline: 120) else {
      return expectTrue(Bool(false))
    }
    expectEqual(pool.opened, 2)
  }

  @Test func aDeadConnectionFreesItsSlotForAWaiter() {
    var pool = State(size: 1, maxWaiters: 4, reconnectDelay: 100)
    _ = pool.acquire(waiter: 1, now: 0, deadline: 50)
    guard case .wait = pool.acquire(waiter: 2, now: 0, deadline: 50) else { return expectTrue(Bool(false)) }
    guard case .openFor(2) = pool.release("dead", reusable: false, now: 5) else {
      return expectTrue(Bool(false))
    }
    expectEqual(pool.opened, 1)
  }

  @Test func aFailedConnectStartsTheReconnectDelay() {
    var pool = State(size: 2, maxWaiters: 4, reconnectDelay: 100)
    _ = pool.acquire(waiter: 1, now: 0, deadline: 50)
    let failed = pool.openFailed(.connectionLost("refused"), now: 10)
    expectTrue(failed.failed == [] && failed.mayOpen == nil)
    guard case .fail(.connectionLost("refused")) = pool.acquire(waiter: 2, now: 50, deadline: 100) else {
      return expectTrue(Bool(false))
    }
    guard case .open = pool.acquire(waiter: 3, now: 110, deadline: 160) else {
      return expectTrue(Bool(false))
    }
    expectEqual(pool.opened, 1)
  }

  @Test func waitersAreFailedWhenNoConnectionIsLeftToServeThem() {
    var pool = State(size: 1, maxWaiters: 4, reconnectDelay: 100)
    _ = pool.acquire(waiter: 1, now: 0, deadline: 50)
    _ = pool.acquire(waiter: 2, now: 0, deadline: 50)
    _ = pool.acquire(waiter: 3, now: 0, deadline: 50)
    let failed = pool.openFailed(.timeout(.connect), now: 5)
    expectTrue(failed.failed == [2, 3] && failed.mayOpen == nil)
    expectEqual(pool.opened, 0)
  }

  @Test func aCancelledOpenPassesItsSlotOnWithoutTheDelay() {
    var pool = State(size: 1, maxWaiters: 4, reconnectDelay: 100)
    _ = pool.acquire(waiter: 1, now: 0, deadline: 50)
    _ = pool.acquire(waiter: 2, now: 0, deadline: 50)
    let failed = pool.openFailed(.cancelled, now: 5)
    expectTrue(failed.failed == [] && failed.mayOpen == 2)
    expectEqual(pool.opened, 1)
  }

  @Test func shutdownReturnsIdleConnectionsAndWaiters() {
    var pool = State(size: 2, maxWaiters: 4, reconnectDelay: 100)
    _ = pool.acquire(waiter: 1, now: 0, deadline: 50)
    _ = pool.release("a", reusable: true, now: 1)
    _ = pool.acquire(waiter: 2, now: 1, deadline: 50)
    _ = pool.acquire(waiter: 3, now: 1, deadline: 50)
    _ = pool.acquire(waiter: 4, now: 1, deadline: 50)
    let (idle, waiters) = pool.shutDown()
    expectTrue(idle == [] && waiters == [4])
    guard case .fail(.shutDown) = pool.acquire(waiter: 5, now: 2, deadline: 50) else {
      return expectTrue(Bool(false))
    }
  }
}
