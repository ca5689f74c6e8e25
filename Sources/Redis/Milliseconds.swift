import Clocks

/// Monotonic milliseconds, the unit every deadline in this target is kept in.
enum Milliseconds {
  /// Now, from the system's monotonic clock: deadlines are enforced by the I/O loop's tick, which
  /// runs on real time, so they are kept in it too (the pool's pure state takes `now` as a value).
  static var now: Int { TimeSource.system.monotonicMilliseconds() }

  /// `now + duration`, saturating.
  static func deadline(after duration: Duration, now: Int = Milliseconds.now) -> Int {
    let (sum, overflow) = now.addingReportingOverflow(duration.wholeMilliseconds)
    return overflow ? Int.max : sum
  }
}
