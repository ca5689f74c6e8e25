/// Local bookkeeping of GitHub's per-resource rate limits, so exhausted resources are refused
/// without a request. Requests in flight are reserved against `remaining`.
///
/// Upstream times are bounded: a primary reset counts only when it is at most an hour ahead
/// (otherwise a minute is assumed), and a refusal whose reset has already passed waits a short
/// back-off that grows while such refusals repeat, so neither a far-future nor a stale reset can
/// lock a resource for long or make callers retry in a tight loop.
struct RateLimitLedger {
  private struct State {
    var limit: Int
    var remaining: Int
    var reset: Int
    var secondaryUntil: Int?
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
    guard let state = states[resource] else { return nil }
    if let until = state.secondaryUntil, now < Double(until) {
      return .rateLimited(resource: resource, until: until, secondary: true)
    }
    if state.remaining <= 0, now < Double(state.reset) {
      return .rateLimited(resource: resource, until: state.reset, secondary: false)
    }
    return nil
  }

  /// Counts one request about to be sent.
  mutating func reserve(_ resource: RateLimitResource, now: Double) {
    guard var state = states[resource] else { return }
    if now >= Double(state.reset) {
      // A new window has begun; the next response's headers will tell its real figures.
      state.remaining = state.limit
    }
    state.remaining = max(0, state.remaining - 1)
    states[resource] = state
  }

  /// Returns a reservation that cost GitHub nothing (a 304, or a request that never arrived).
  mutating func refund(_ resource: RateLimitResource) {
    guard var state = states[resource] else { return }
    state.remaining = min(state.limit, state.remaining + 1)
    states[resource] = state
  }

  /// Folds in a response's headers. Within one window the lower count wins, because responses to
  /// concurrent requests arrive out of order; a later window replaces the figures.
  mutating func record(_ headers: RateLimitHeaders, resource: RateLimitResource, now: Double) {
    guard let remaining = headers.remaining else { return }
    let seconds = Int(now)
    let reset = Self.boundedReset(headers.reset ?? states[resource]?.reset ?? seconds + 60, now: seconds)
    if remaining > 0 { states[resource]?.staleRefusals = 0 }
    let limit = headers.limit ?? states[resource]?.limit ?? remaining
    guard var state = states[resource] else {
      states[resource] = State(limit: limit, remaining: remaining, reset: reset)
      return
    }
    if reset > state.reset {
      state.remaining = remaining
      state.reset = reset
    } else if reset == state.reset {
      state.remaining = min(state.remaining, remaining)
    }
    state.limit = limit
    states[resource] = state
  }

  /// Marks `resource` exhausted after GitHub refused a request that said until `until`, and
  /// returns the time actually used: bounded to an hour ahead, and a short growing back-off when
  /// `until` has already passed.
  mutating func block(_ resource: RateLimitResource, until: Int, secondary: Bool, now: Double) -> Int {
    let seconds = Int(now)
    var state = states[resource] ?? State(limit: 0, remaining: 0, reset: until)
    var until = Self.boundedReset(until, now: seconds)
    if until <= seconds {
      let shift = min(state.staleRefusals, 4)
      until = seconds + min(Self.fallbackWait, Self.staleBackoff << shift)
      state.staleRefusals += 1
    } else {
      state.staleRefusals = 0
    }
    if secondary {
      state.secondaryUntil = max(state.secondaryUntil ?? until, until)
    } else {
      state.remaining = 0
      state.reset = until
    }
    states[resource] = state
    return until
  }

  /// Every known resource, sorted by name.
  var snapshots: [RateLimitSnapshot] {
    states.sorted { $0.key < $1.key }.map {
      RateLimitSnapshot(
        resource: $0.key, limit: $0.value.limit, remaining: $0.value.remaining, reset: $0.value.reset,
        secondaryUntil: $0.value.secondaryUntil)
    }
  }
}
