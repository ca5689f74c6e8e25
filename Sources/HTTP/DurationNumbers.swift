extension Duration {
  /// Whole milliseconds, rounded down; saturates instead of trapping for huge durations.
  public var wholeMilliseconds: Int {
    let (seconds, attoseconds) = components
    let (ms, overflow) = seconds.multipliedReportingOverflow(by: 1000)
    if overflow { return seconds < 0 ? Int.min : Int.max }
    return Int(ms).addingReportingOverflow(Int(attoseconds / 1_000_000_000_000_000)).partialValue
  }

  /// Seconds as a `Double` (metrics, rates).
  public var secondsValue: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
