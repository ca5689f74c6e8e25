import Synchronization

/// The caller's side of one request, shared by the awaiting task and the loop thread.
///
/// It guarantees the continuation is resumed exactly once, whichever of completion,
/// cancellation or shutdown gets there first.
final class RequestTicket: Sendable {
  /// The validated request.
  let request: ClientRequest

  private struct State {
    var continuation: CheckedContinuation<Result<ClientResponse, ClientError>, Never>?
    var cancelled = false
    var finished = false
  }

  private let state = Mutex(State())

  init(request: ClientRequest) { self.request = request }

  /// Stores the continuation; false if the ticket was already cancelled or finished (the caller
  /// then resumes it itself).
  func install(_ continuation: CheckedContinuation<Result<ClientResponse, ClientError>, Never>) -> Bool {
    state.withLock { s in
      if s.cancelled || s.finished { return false }
      s.continuation = continuation
      return true
    }
  }

  /// Records that the calling task was cancelled.
  func markCancelled() { state.withLock { $0.cancelled = true } }

  /// Whether the calling task was cancelled.
  var isCancelled: Bool { state.withLock { $0.cancelled } }

  /// Whether a result was already delivered (or the ticket was cancelled before one was).
  var isFinished: Bool { state.withLock { $0.finished } }

  /// Delivers the result; later calls do nothing.
  func finish(_ result: Result<ClientResponse, ClientError>) {
    let continuation = state.withLock {
      s -> CheckedContinuation<Result<ClientResponse, ClientError>, Never>? in
      if s.finished { return nil }
      s.finished = true
      defer { s.continuation = nil }
      return s.continuation
    }
    continuation?.resume(returning: result)
  }
}
