/// One rate-limit resource's window as a ledger keeps it: the rules in one place for the in-process
/// ledger of each instance and for `MemoryStore` (the Redis store runs the same rules in
/// `LedgerScripts`). Requests in flight are reserved against `remaining`.
public struct LedgerWindow: Sendable, Equatable {
  /// Requests allowed per window.
  public var limit: Int
  /// Requests left in this window, in-flight ones counted.
  public var remaining: Int
  /// When the window resets, Unix seconds.
  public var reset: Int
  /// Until when a secondary limit blocks the resource, Unix seconds, if one does.
  public var secondaryUntil: Int?

  /// A window from its parts.
  public init(limit: Int, remaining: Int, reset: Int, secondaryUntil: Int? = nil) {
    self.limit = limit
    self.remaining = remaining
    self.reset = reset
    self.secondaryUntil = secondaryUntil
  }

  /// Why a call at `now` must wait, or nil when it may go.
  public func refusal(now: Double) -> LedgerRefusal? {
    if let until = secondaryUntil, now < Double(until) { return LedgerRefusal(until: until, secondary: true) }
    if remaining <= 0, now < Double(reset) { return LedgerRefusal(until: reset, secondary: false) }
    return nil
  }

  /// Counts one request about to be sent (after `refusal` allowed it).
  public mutating func reserve(now: Double) {
    // A new window has begun; the next response's headers tell its real figures.
    if now >= Double(reset) { remaining = limit }
    remaining = max(0, remaining - 1)
  }

  /// Returns a reservation that cost GitHub nothing (a 304, or a request that never arrived).
  public mutating func refund() { remaining = min(limit, remaining + 1) }

  /// Folds in a response's figures. Within one window the lower count wins, because responses to
  /// concurrent requests arrive out of order; a later window replaces the figures.
  public mutating func record(limit: Int, remaining: Int, reset: Int) {
    if reset > self.reset {
      self.remaining = remaining
      self.reset = reset
    } else if reset == self.reset {
      self.remaining = min(self.remaining, remaining)
    }
    self.limit = limit
  }

  /// Marks the resource refused until `until`: a secondary block, or the window's budget spent.
  public mutating func block(until: Int, secondary: Bool) {
    if secondary {
      secondaryUntil = max(secondaryUntil ?? until, until)
    } else {
      remaining = 0
      reset = until
    }
  }
}
