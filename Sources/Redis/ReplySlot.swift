import Synchronization

/// Where one caller waits for one outcome. Whoever finishes first (the reply, a failure, a timeout or
/// the caller's cancellation) resumes the caller; later finishes are ignored. This makes cancellation
/// race-free without a hop to the loop thread.
final class ReplySlot<Value: Sendable>: Sendable {
  private enum State {
    case idle
    case waiting(CheckedContinuation<Result<Value, RedisError>, Never>)
    case finished(Result<Value, RedisError>)
    case done
  }

  private let state = Mutex(State.idle)

  /// Suspends until `finish` is called (possibly already before the wait began).
  /// `start` runs once the continuation is installed, to hand the slot to the loop.
  func wait(start: () -> Void) async -> Result<Value, RedisError> {
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let early: Result<Value, RedisError>? = state.withLock { state in
          if case .finished(let result) = state {
            state = .done
            return result
          }
          state = .waiting(continuation)
          return nil
        }
        if let early {
          continuation.resume(returning: early)
        } else {
          start()
        }
      }
    } onCancel: {
      finish(.failure(.cancelled))
    }
  }

  /// Delivers `result` unless an outcome was already delivered; false if one was.
  @discardableResult
  func finish(_ result: Result<Value, RedisError>) -> Bool {
    let (taken, continuation): (Bool, CheckedContinuation<Result<Value, RedisError>, Never>?) = state.withLock
    {
      state in
      switch state {
      case .idle:
        state = .finished(result)
        return (true, nil)
      case .waiting(let continuation):
        state = .done
        return (true, continuation)
      case .finished, .done:
        return (false, nil)
      }
    }
    continuation?.resume(returning: result)
    return taken
  }

  /// True once an outcome was delivered (the reply is no longer wanted).
  var isFinished: Bool {
    state.withLock { state in
      switch state {
      case .idle, .waiting: return false
      case .finished, .done: return true
      }
    }
  }
}
