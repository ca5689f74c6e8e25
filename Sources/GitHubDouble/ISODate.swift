/// Calendar arithmetic on Unix seconds (UTC), without Foundation.
enum ISODate {
  /// The civil date of a day count since 1970-01-01.
  static func civil(fromDays z0: Int) -> (Int, Int, Int) {
    let z = z0 + 719468
    let era = (z >= 0 ? z : z - 146096) / 146097
    let doe = z - era * 146097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
  }

  /// The Unix time of the Sunday 00:00 UTC that starts the week containing `unix`.
  static func weekStart(_ unix: Int) -> Int {
    let days = unix >= 0 ? unix / 86400 : (unix - 86399) / 86400
    // 1970-01-01 was a Thursday: day 0 has weekday 4 when Sunday is 0.
    let weekday = ((days % 7) + 7 + 4) % 7
    return (days - weekday) * 86400
  }
}
