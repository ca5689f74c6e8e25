import HTTP

/// Week arithmetic on Unix seconds (UTC); civil dates come from `CivilDate`.
enum ISODate {
  /// The Unix time of the Sunday 00:00 UTC that starts the week containing `unix`.
  static func weekStart(_ unix: Int) -> Int {
    let days = CivilDate.days(fromUnix: unix)
    // 1970-01-01 was a Thursday: day 0 has weekday 4 when Sunday is 0.
    let weekday = ((days % 7) + 7 + 4) % 7
    return (days - weekday) * 86400
  }
}
