import HTTP
import Sockets

/// Monotonic milliseconds, the unit every deadline in this target is kept in.
enum Milliseconds {
  /// Now, from the loop's monotonic clock.
  static var now: Int { EventLoop.monotonicMilliseconds() }

  /// `now + duration`, saturating.
  static func deadline(after duration: Duration, now: Int = Milliseconds.now) -> Int {
    let (sum, overflow) = now.addingReportingOverflow(duration.wholeMilliseconds)
    return overflow ? Int.max : sum
  }
}
