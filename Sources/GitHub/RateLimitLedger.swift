import SharedStore

/// Local bookkeeping of GitHub's per-resource rate limits, so exhausted resources are refused
/// without a request. Requests in flight are reserved against `remaining`.
///
/// Upstream times are bounded: a primary reset counts only when it is at most an hour ahead
/// (otherwise a minute is assumed), and a refusal whose reset has already passed waits a short
/// back-off that grows while such refusals repeat, so neither a far-future nor a stale reset can
/// lock a resource for long or make callers retry in a tight loop.
struct RateLimitLedger {
  private struct State {
    var window: LedgerWindow
    /// Refusals in a row whose reset had already passed.
    var staleRefusals = 0
  }

  /// The furthest ahead a primary reset is believed (GitHub's windows are an hour at most).
  static let maxResetAhead = 3600
  /// The wait assumed when a reset is further ahead than that.
  static let fallbackWait = 60
  /// The first back-off after a refusal whose reset has passed; it doubles up to `fallbackWait`.
  static let staleBackoff = 5

  private var states: [RateLimitResource: State] = [:]

  /// `reset` when it is at most `maxResetAhead` seconds after `now`, else `now + fallbackWait`.
  static func boundedReset(_ reset: Int, now: Int) -> Int {
    reset > now &+ maxResetAhead ? now &+ fallbackWait : reset
  }

  /// The error to answer locally when `resource` may not be called at `now`, else nil.
  func refusal(_ resource: RateLimitResource, now: Double) -> GitHubError? {
    guard let refusal = states[resource]?.window.refusal(now: now) else { return nil }
    return .rateLimited(resource: resource, until: refusal.until, secondary: refusal.secondary)
  }

  /// Counts one request about to be sent.
  mutating func reserve(_ resource: RateLimitResource, now: Double) {
    states[resource]?.window.reserve(now: now)
  }

  /// Returns a reservation that cost GitHub nothing (a 304, or a request that never arrived).
  mutating func refund(_ resource: RateLimitResource) {
    states[resource]?.window.refund()
  }

  /// Folds in a response's headers (see `LedgerWindow.record`); a reset is bounded first.
  mutating func record(_ headers: RateLimitHeaders, resource: RateLimitResource, now: Double) {
    guard let remaining = headers.remaining else { return }
    let seconds = Int(now)
    let reset = Self.boundedReset(
      headers.reset ?? states[resource]?.window.reset ?? seconds + 60, now: seconds)
    if remaining > 0 { states[resource]?.staleRefusals = 0 }
    let limit = headers.limit ?? states[resource]?.window.limit ?? remaining
    guard states[resource] != nil else {
      states[resource] = State(window: LedgerWindow(limit: limit, remaining: remaining, reset: reset))
      return
    }
    states[resource]?.window.record(limit: limit, remaining: remaining, reset: reset)
  }

  /// Marks `resource` exhausted after GitHub refused a request that said until `until`, and
  /// returns the time actually used: bounded to an hour ahead, and a short growing back-off when
  /// `until` has already passed.
  mutating func block(_ resource: RateLimitResource, until: Int, secondary: Bool, now: Double) -> Int {
    let seconds = Int(now)
    var state = states[resource] ?? State(window: LedgerWindow(limit: 0, remaining: 0, reset: until))
    var until = Self.boundedReset(until, now: seconds)
    if until <= seconds {
      let shift = min(state.staleRefusals, 4)
      until = seconds + min(Self.fallbackWait, Self.staleBackoff << shift)
      state.staleRefusals += 1
    } else {
      state.staleRefusals = 0
    }
    state.window.block(until: until, secondary: secondary)
    states[resource] = state
    return until
  }

  /// Whether nothing is known that could refuse a call at `now` or later (every window has reset and
  /// no secondary limit holds): such a ledger can be dropped and learnt again from the next answer.
  func isIdle(now: Int) -> Bool {
    states.values.allSatisfy { $0.window.reset <= now && ($0.window.secondaryUntil ?? 0) <= now }
  }

  /// Every known resource, sorted by name.
  var snapshots: [RateLimitSnapshot] {
    states.sorted { $0.key < $1.key }.map {
      RateLimitSnapshot(
        resource: $0.key, limit: $0.value.window.limit, remaining: $0.value.window.remaining,
        reset: $0.value.window.reset, secondaryUntil: $0.value.window.secondaryUntil)
    }
  }
}
