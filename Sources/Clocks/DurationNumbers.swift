extension Duration {
  /// Whole milliseconds, for deadlines on the monotonic millisecond clock: negative durations are 0 and
  /// huge ones saturate at `Int.max / 4`, so that adding one to a clock reading cannot overflow.
  public var wholeMilliseconds: Int { whole(perSecond: 1000) }

  /// Whole microseconds, for logs; clamped like `wholeMilliseconds`.
  public var wholeMicroseconds: Int { whole(perSecond: 1_000_000) }

  /// Seconds as a `Double` (metrics, rates).
  public var secondsValue: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }

  private func whole(perSecond units: Int64) -> Int {
    let (seconds, attoseconds) = components
    if seconds < 0 { return 0 }
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: units)
    if overflow || whole > Int64.max / 4 { return Int.max / 4 }
    return Int(whole) + Int(attoseconds / (1_000_000_000_000_000_000 / units))
  }
}
