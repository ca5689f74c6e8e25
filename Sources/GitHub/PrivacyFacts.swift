import Credentials
import Synchronization

/// What GitHub's answers taught this process about who sees what: the visibility of repositories
/// (from search items and `GET /repos/{owner}/{repo}`), readers whose answers held private items
/// although their scopes said public only, and what the server's own token may see. Bounded, per
/// process, never shared: a visibility learnt from a reader's private answer names a private
/// repository, so it stays in this memory.
///
/// ```swift
/// let facts = PrivacyFacts(serverAccess: .unknown)
/// facts.learn(page.items, until: now + 600)
/// facts.visibility(of: "octo/secret", now: now)  // false: private, or nil when never seen
/// ```
final class PrivacyFacts: Sendable {
  /// Most repositories remembered; the memory is cleared when full (a repository then counts as
  /// unknown, which is the cautious answer).
  static let maxRepositories = 100_000
  /// Most readers remembered as contradicted by their answers.
  static let maxReaders = 10_000

  private struct State {
    var repositories: [String: (isPublic: Bool, until: Double)] = [:]
    var contradicted: Set<Int> = []
    var server: RepositoryAccess?
  }

  private let state: Mutex<State>

  /// `serverAccess` is what the server's token may see until told otherwise: nil without a token
  /// (anonymous calls see public data only), `.unknown` for a token not checked yet.
  init(serverAccess: RepositoryAccess?) {
    state = Mutex(State(server: serverAccess))
  }

  /// The visibility of `owner/name` (any case) as last learnt: true public, false not public, nil
  /// unknown or forgotten.
  func visibility(of fullName: String, now: Double) -> Bool? {
    let key = fullName.lowercased()
    return state.withLock { state in
      guard let fact = state.repositories[key], now < fact.until else { return nil }
      return fact.isPublic
    }
  }

  /// Learns the visibility of every repository of an answer, until `until` (Unix seconds).
  func learn(_ repositories: [Repository], until: Double) {
    guard !repositories.isEmpty else { return }
    let facts = repositories.map { ($0.fullName.lowercased(), $0.isPublic) }
    state.withLock { state in
      if state.repositories.count + facts.count > Self.maxRepositories {
        state.repositories.removeAll(keepingCapacity: true)
      }
      for (name, isPublic) in facts where !name.isEmpty {
        state.repositories[name] = (isPublic, until)
      }
    }
  }

  /// Learns one repository's visibility.
  func learn(_ fullName: String, isPublic: Bool, until: Double) {
    let key = fullName.lowercased()
    state.withLock { state in
      if state.repositories.count >= Self.maxRepositories {
        state.repositories.removeAll(keepingCapacity: true)
      }
      state.repositories[key] = (isPublic, until)
    }
  }

  /// What `reader` may see: their token's access, or `.unknown` once an answer to them held a
  /// non-public item although their scopes said public only.
  func access(of reader: ReaderCredential) -> RepositoryAccess {
    guard reader.access == .publicOnly else { return reader.access }
    return state.withLock { $0.contradicted.contains(reader.userID) } ? .unknown : .publicOnly
  }

  /// Notes that an answer to the reader `id` held a non-public item although their scopes lack `repo`.
  func contradicted(reader id: Int) {
    state.withLock { state in
      if state.contradicted.count >= Self.maxReaders { state.contradicted.removeAll(keepingCapacity: true) }
      state.contradicted.insert(id)
    }
  }

  /// What the server's token may see: nil without a token.
  var serverAccess: RepositoryAccess? { state.withLock { $0.server } }

  /// Whether anonymous readers' calls (the server's token) may return private data.
  var serverMaySeePrivate: Bool { serverAccess?.maySeePrivate ?? false }

  /// Sets what the server's token may see (the startup check); ignored without a token.
  func setServerAccess(_ access: RepositoryAccess) {
    state.withLock { state in
      if state.server != nil { state.server = access }
    }
  }

  /// An answer to the server's token held a non-public item: whatever its scopes said, it may see
  /// private data.
  func serverSawPrivate() {
    state.withLock { state in
      if state.server == .publicOnly { state.server = .unknown }
    }
  }
}
