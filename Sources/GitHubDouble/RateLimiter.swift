/// The rate-limit resources the double tracks.
public enum DoubleResource: String, Sendable, CaseIterable {
  /// REST core (history, count, repos).
  case core
  /// Search.
  case search
}

/// One resource's window: GitHub's limit / remaining / reset / used bookkeeping.
public struct RateWindow: Sendable, Equatable {
  /// Requests allowed per window.
  public var limit: Int
  /// Requests left in the current window.
  public var remaining: Int
  /// Unix second at which the window resets.
  public var reset: Int
  /// Requests used in the current window.
  public var used: Int
  /// Window length in seconds.
  public var window: Int

  /// A full window.
  public init(limit: Int, window: Int, now: Int) {
    self.limit = limit
    remaining = limit
    reset = now + window
    used = 0
    self.window = window
  }

  /// Starts a new window if the old one has passed.
  mutating func roll(now: Int) {
    if now >= reset {
      remaining = limit
      used = 0
      reset = now + window
    }
  }

  /// Takes one request; false when exhausted.
  mutating func take(now: Int) -> Bool {
    roll(now: now)
    guard remaining > 0 else { return false }
    remaining -= 1
    used += 1
    return true
  }
}
