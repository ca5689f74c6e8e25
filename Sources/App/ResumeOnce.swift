import Synchronization

/// A continuation that the first of several racers resumes; the later ones find it gone.
final class ResumeOnce<T: Sendable>: Sendable {
  private let continuation = Mutex<CheckedContinuation<T, Never>?>(nil)

  /// Keeps the continuation to resume.
  func set(_ value: CheckedContinuation<T, Never>) { continuation.withLock { $0 = value } }

  /// Resumes with `value` if no one has yet.
  func resume(returning value: T) { continuation.withLock { $0.take() }?.resume(returning: value) }
}
