import Synchronization

/// One value passed from a task to a handler that waits for it a short while: the task learns
/// whether the handler took it, or stopped waiting and left the value to the task.
///
/// ```swift
/// let handoff = Handoff<Int>()
/// Task { if !handoff.offer(42) { /* nobody waited: carry on with 42 here */ } }
/// let value = await handoff.take(within: .milliseconds(1))  // 42, or nil after 1 ms
/// ```
final class Handoff<Value: Sendable>: Sendable {
  private enum State {
    case open
    case waiting(CheckedContinuation<Value?, Never>)
    case offered(Value)
    case closed
  }

  private let state = Mutex(State.open)

  /// Gives `value` to the handler; false when it stopped waiting (then the value stays with the caller).
  func offer(_ value: Value) -> Bool {
    let (taken, waiter): (Bool, CheckedContinuation<Value?, Never>?) = state.withLock { state in
      switch state {
      case .open:
        state = .offered(value)
        return (true, nil)
      case .waiting(let continuation):
        state = .closed
        return (true, continuation)
      case .offered, .closed:
        return (false, nil)
      }
    }
    waiter?.resume(returning: value)
    return taken
  }

  /// Stops waiting: a value offered from now on stays with the task.
  func close() {
    let waiter: CheckedContinuation<Value?, Never>? = state.withLock { state in
      switch state {
      case .open:
        state = .closed
        return nil
      case .waiting(let continuation):
        state = .closed
        return continuation
      case .offered, .closed:
        return nil
      }
    }
    waiter?.resume(returning: nil)
  }

  /// The value if it is offered within `limit`, else nil (also when the task is cancelled). The
  /// timer is a child task, cancelled as soon as the wait ends.
  func take(within limit: Duration) async -> Value? {
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        try? await Task.sleep(for: limit)
        self.close()
      }
      let value: Value? = await withCheckedContinuation { continuation in
        let ready: Value?? = state.withLock { state in
          switch state {
          case .open:
            state = .waiting(continuation)
            return .none
          case .offered(let value):
            state = .closed
            return .some(value)
          case .waiting, .closed:
            return .some(nil)
          }
        }
        if let ready { continuation.resume(returning: ready) }
      }
      group.cancelAll()
      return value
    }
  }
}
