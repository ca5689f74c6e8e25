import Synchronization

/// Whether shutdown has begun: set once by `RepoScrollApp.shutdown`, read by `/healthz`.
final class Draining: Sendable {
  private let flag = Atomic<Bool>(false)

  /// Not draining yet.
  init() {}

  /// True once shutdown has begun.
  var isOn: Bool { flag.load(ordering: .relaxed) }

  /// Marks shutdown as begun.
  func begin() { flag.store(true, ordering: .relaxed) }
}
