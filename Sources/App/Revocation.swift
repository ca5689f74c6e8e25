import Synchronization

/// Set once when GitHub refused a reader's token during one request (several upstream pages may
/// be read concurrently for a batch; any of them may see the 401).
final class Revocation: Sendable {
  private let flag = Atomic<Bool>(false)

  /// Records the refusal.
  func record() { flag.store(true, ordering: .relaxed) }

  /// Whether GitHub refused the token.
  var happened: Bool { flag.load(ordering: .relaxed) }
}
