import Credentials
import GitHub
import Synchronization

/// One request's hold on a signed-in reader's token. Several upstream pages may be read concurrently
/// for a batch, and any of them may see GitHub refuse the token (401): then the token is renewed once
/// (`renew`, through the session book, which makes it once per session across instances) and every
/// later call of the request uses the renewed one. When it cannot be renewed the refusal is recorded
/// (the route ends the session) or, when GitHub or the store could not be reached, the request goes
/// on anonymously and the session is kept.
final class Revocation: Sendable {
  /// What a renewal after a refusal came to.
  enum Outcome: Sendable {
    /// A credential with the renewed token.
    case renewed(ReaderCredential)
    /// The token cannot be renewed: the session is over.
    case refused
    /// Not now: this request goes on anonymously.
    case unavailable
  }

  private struct State {
    var renewed: ReaderCredential?
    var refused = false
    var suspended = false
  }

  private let state = Mutex(State())
  private let renew: (@Sendable (ReaderCredential) async -> Outcome)?

  /// A hold that renews through `renew` (nil: a refusal is final, as for a token that cannot expire).
  init(renew: (@Sendable (ReaderCredential) async -> Outcome)? = nil) { self.renew = renew }

  /// Records a final refusal.
  func record() { state.withLock { $0.refused = true } }

  /// Whether GitHub refused the token for good (the route ends the session).
  var happened: Bool { state.withLock { $0.refused } }

  /// The credential the request's calls go out with: the renewed one after a renewal, nil once the
  /// token was refused or could not be renewed (the calls then go anonymously).
  func usable(_ original: ReaderCredential) -> ReaderCredential? {
    state.withLock { state in state.refused || state.suspended ? nil : state.renewed ?? original }
  }

  /// After GitHub refused `refused`: the credential to try again with, or nil (recorded as a refusal,
  /// or as a suspension when renewal was not possible now). A call that failed with a token already
  /// renewed meanwhile gets the renewed one without asking again.
  func renewed(after refused: ReaderCredential) async -> ReaderCredential? {
    let known = state.withLock { state -> ReaderCredential?? in
      if state.refused || state.suspended { return .some(nil) }
      if let renewed = state.renewed, renewed.token != refused.token { return .some(renewed) }
      return .none
    }
    if let known { return known }
    guard let renew else {
      record()
      return nil
    }
    let outcome = await renew(refused)
    return state.withLock { state -> ReaderCredential? in
      switch outcome {
      case .renewed(let credential):
        state.renewed = credential
        return credential
      case .refused:
        state.refused = true
        return nil
      case .unavailable:
        state.suspended = true
        return nil
      }
    }
  }

  /// One upstream call as `reader`: with the renewed token once GitHub refused the old one (renewed
  /// once, then tried again), or anonymously when the token cannot be used, so the answer loses
  /// nothing while the route ends or keeps the session. Other errors are the call's own.
  func run<T>(as reader: ReaderCredential, _ call: (ReaderCredential?) async throws(GitHubError) -> T)
    async throws(GitHubError) -> T
  {
    guard let credential = usable(reader) else { return try await call(nil) }
    do {
      return try await call(credential)
    } catch {
      guard error == .unauthorized else { throw error }
    }
    if let renewed = await renewed(after: credential) {
      do {
        return try await call(renewed)
      } catch {
        guard error == .unauthorized else { throw error }
      }
      record()
    }
    return try await call(nil)
  }
}
