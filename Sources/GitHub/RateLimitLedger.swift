/// Local bookkeeping of GitHub's per-resource rate limits, so exhausted resources are refused
/// without a request. Requests in flight are reserved against `remaining`.
struct RateLimitLedger {
  private struct State {
    var limit: Int
    var remaining: Int
    var reset: Int
    var secondaryUntil: Int?
  }

  private var states: [String: State] = [:]

  /// The error to answer locally when `resource` may not be called at `now`, else nil.
  func refusal(_ resource: String, now: Double) -> GitHubError? {
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
  mutating func reserve(_ resource: String, now: Double) {
    guard var state = states[resource] else { return }
    if now >= Double(state.reset) {
      // A new window has begun; the next response's headers will tell its real figures.
      state.remaining = state.limit
    }
    state.remaining = max(0, state.remaining - 1)
    states[resource] = state
  }

  /// Returns a reservation that cost GitHub nothing (a 304, or a request that never arrived).
  mutating func refund(_ resource: String) {
    guard var state = states[resource] else { return }
    state.remaining = min(state.limit, state.remaining + 1)
    states[resource] = state
  }

  /// Folds in a response's headers. Within one window the lower count wins, because responses to
  /// concurrent requests arrive out of order; a later window replaces the figures.
  mutating func record(_ headers: RateLimitHeaders, resource: String, now: Double) {
    guard let remaining = headers.remaining else { return }
    let reset = headers.reset ?? states[resource]?.reset ?? Int(now) + 60
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

  /// Marks `resource` exhausted until `until` after GitHub refused a request.
  mutating func block(_ resource: String, until: Int, secondary: Bool) {
    var state = states[resource] ?? State(limit: 0, remaining: 0, reset: until)
    if secondary {
      state.secondaryUntil = max(state.secondaryUntil ?? until, until)
    } else {
      state.remaining = 0
      state.reset = until
    }
    states[resource] = state
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
