import Sockets

/// Monotonic milliseconds, the unit every deadline in this target is kept in.
enum Milliseconds {
  /// Now, from the loop's monotonic clock.
  static var now: Int { EventLoop.monotonicMilliseconds() }

  /// `duration` in whole milliseconds, saturating instead of overflowing; negative durations are 0.
  static func of(_ duration: Duration) -> Int {
    let (seconds, attoseconds) = duration.components
    if seconds < 0 { return 0 }
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
    if overflow { return Int.max / 2 }
    return Int(min(whole, Int64.max / 4)) + Int(attoseconds / 1_000_000_000_000_000)
  }

  /// `now + duration`, saturating.
  static func deadline(after duration: Duration, now: Int = Milliseconds.now) -> Int {
    let (sum, overflow) = now.addingReportingOverflow(of(duration))
    return overflow ? Int.max : sum
  }
}
