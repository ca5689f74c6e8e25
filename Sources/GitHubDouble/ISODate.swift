/// Converts Unix seconds to the `YYYY-MM-DDTHH:MM:SSZ` form GitHub uses, without Foundation.
enum ISODate {
  /// Formats Unix seconds (UTC) as ISO 8601 with a `Z` suffix.
  static func format(_ unix: Int) -> String {
    let days = unix >= 0 ? unix / 86400 : (unix - 86399) / 86400
    let secs = unix - days * 86400
    let (y, m, d) = civil(fromDays: days)
    return
      "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secs / 3600, 2)):\(pad(secs / 60 % 60, 2)):\(pad(secs % 60, 2))Z"
  }

  /// Days since 1970-01-01 for a civil date (proleptic Gregorian).
  static func days(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = (month + 9) % 12
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146097 + doe - 719468
  }

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

  private static func pad(_ v: Int, _ width: Int) -> String {
    let s = String(v)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
  }
}
