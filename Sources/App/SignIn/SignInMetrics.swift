import Synchronization

/// What sign-in did that operators watch for, for `/metrics`: token refreshes at GitHub by outcome
/// (a climbing `refused` means readers are being signed out), revocations by outcome, and sign-ins
/// refused because the session store is full.
final class SignInMetrics: Sendable {
  /// How one call to GitHub ended.
  enum Outcome: String, CaseIterable, Sendable {
    /// GitHub did it.
    case ok
    /// GitHub refused it (`bad_refresh_token`; for a revocation, a token it does not know).
    case refused
    /// GitHub could not be reached, or answered something unusable.
    case failed
  }

  private struct State {
    var refreshes: [Outcome: Int] = [:]
    var revocations: [Outcome: Int] = [:]
    var full = 0
  }

  private let state = Mutex(State())

  func refreshed(_ outcome: Outcome) { state.withLock { $0.refreshes[outcome, default: 0] += 1 } }
  func revoked(_ outcome: Outcome) { state.withLock { $0.revocations[outcome, default: 0] += 1 } }
  func refusedFull() { state.withLock { $0.full += 1 } }

  /// Refreshes that ended as `outcome`, for tests.
  func refreshes(_ outcome: Outcome) -> Int { state.withLock { $0.refreshes[outcome] ?? 0 } }

  /// The three families, every outcome present (zero included), so alerts see them from the start.
  func render(into out: inout MetricsText) {
    let snapshot = state.withLock { $0 }
    out.family(
      "reposcroll_token_refreshes_total", .counter,
      "Refreshes of readers' expiring tokens at GitHub, by outcome (refused: the reader was signed out).")
    for outcome in Outcome.allCases {
      out.sample(
        "reposcroll_token_refreshes_total", labels: "outcome=\"\(outcome.rawValue)\"",
        snapshot.refreshes[outcome] ?? 0)
    }
    out.family(
      "reposcroll_token_revocations_total", .counter, "Revocations of readers' tokens at GitHub, by outcome.")
    for outcome in Outcome.allCases {
      out.sample(
        "reposcroll_token_revocations_total", labels: "outcome=\"\(outcome.rawValue)\"",
        snapshot.revocations[outcome] ?? 0)
    }
    out.single(
      "reposcroll_sign_ins_refused_full_total", .counter,
      "Sign-ins refused with a 503 because the session store holds --max-sessions.", snapshot.full)
  }
}
