import Clocks

/// Monotonic milliseconds, the unit every deadline in this target is kept in.
enum Milliseconds {
  /// `now + duration`, saturating.
  static func deadline(after duration: Duration, now: Int) -> Int {
    let (sum, overflow) = now.addingReportingOverflow(duration.wholeMilliseconds)
    return overflow ? Int.max : sum
  }
}
