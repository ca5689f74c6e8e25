import Synchronization

/// The end of a session's token renewal, as an event in this process: whoever renewed fires it, and
/// the requests that waited for the rotated token wake and read it. A Redis store also fires it for
/// renewals on other instances (it hears them over pub/sub).
///
/// ```swift
/// let waiter = signals.waiter("name")      // before reading the record
/// // … the record still holds the old token …
/// await waiter.wait(timeout: .seconds(1))  // returns at the event, or at the timeout
/// ```
public final class RenewalSignals: Sendable {
  private struct State {
    /// Waiters by session name, each pending, fired, or suspended on its continuation.
    var waiters: [String: [Int: Slot]] = [:]
    var nextID = 0
  }

  fileprivate enum Slot {
    case pending
    case fired
    case waiting(CheckedContinuation<Void, Never>)
  }

  private let state = Mutex(State())

  /// No waiters.
  public init() {}

  /// A waiter for the next `fire(name)`.
  public func waiter(_ name: String) -> RenewalWaiter {
    let id = state.withLock { state -> Int in
      state.nextID &+= 1
      state.waiters[name, default: [:]][state.nextID] = .pending
      return state.nextID
    }
    return RenewalWaiter(signals: self, name: name, id: id)
  }

  /// Wakes every waiter of `name` (and marks those not yet waiting, so they return at once).
  public func fire(_ name: String) {
    let resumed = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      guard var slots = state.waiters[name] else { return [] }
      var resumed: [CheckedContinuation<Void, Never>] = []
      for (id, slot) in slots {
        switch slot {
        case .pending: slots[id] = .fired
        case .waiting(let continuation):
          resumed.append(continuation)
          slots[id] = nil
        case .fired: break
        }
      }
      state.waiters[name] = slots.isEmpty ? nil : slots
      return resumed
    }
    for continuation in resumed { continuation.resume() }
  }

  /// Waiters registered now, for tests.
  var count: Int { state.withLock { $0.waiters.values.reduce(0) { $0 + $1.count } } }

  fileprivate func wait(_ name: String, id: Int, timeout: Duration) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let fired = state.withLock { state -> Bool in
        guard case .pending = state.waiters[name]?[id] else {
          // Fired already (or forgotten): nothing to wait for.
          remove(name, id, in: &state)
          return true
        }
        state.waiters[name]?[id] = .waiting(continuation)
        return false
      }
      if fired {
        continuation.resume()
        return
      }
      // The timeout resumes the waiter unless the event came first.
      Task { [self] in
        try? await Task.sleep(for: timeout)
        self.expire(name, id)
      }
    }
  }

  fileprivate func forget(_ name: String, id: Int) {
    let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
      let slot = state.waiters[name]?[id]
      remove(name, id, in: &state)
      if case .waiting(let continuation) = slot { return continuation }
      return nil
    }
    waiting?.resume()
  }

  private func expire(_ name: String, _ id: Int) {
    let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard case .waiting(let continuation) = state.waiters[name]?[id] else { return nil }
      remove(name, id, in: &state)
      return continuation
    }
    waiting?.resume()
  }

  private func remove(_ name: String, _ id: Int, in state: inout State) {
    state.waiters[name]?[id] = nil
    if state.waiters[name]?.isEmpty == true { state.waiters[name] = nil }
  }
}

/// One wait for the end of a renewal (see `RenewalSignals`). Wait once; a waiter that is dropped
/// without waiting is forgotten.
public final class RenewalWaiter: Sendable {
  private let signals: RenewalSignals
  private let name: String
  private let id: Int

  fileprivate init(signals: RenewalSignals, name: String, id: Int) {
    self.signals = signals
    self.name = name
    self.id = id
  }

  deinit { signals.forget(name, id: id) }

  /// Returns when the renewal ends (at once if it already has since the waiter was made), or after
  /// `timeout`.
  public func wait(timeout: Duration) async { await signals.wait(name, id: id, timeout: timeout) }
}
