/// Proleptic Gregorian calendar arithmetic on Unix time (UTC), without Foundation or the C library.
/// HTTP dates, GitHub's ISO dates and the GitHub double's timestamps all share it.
public enum CivilDate {
  /// The day count since 1970-01-01 of Unix seconds, rounding towards the past.
  public static func days(fromUnix seconds: Int) -> Int { floorDiv(seconds, 86400) }

  /// The civil date (month and day from 1) of a day count since 1970-01-01 (era-based algorithm).
  public static func civil(fromDays z0: Int) -> (year: Int, month: Int, day: Int) {
    let z = z0 + 719_468
    let era = floorDiv(z, 146_097)
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
  }

  /// The day count since 1970-01-01 of a civil date (month and day from 1).
  public static func days(fromCivil y0: Int, _ m: Int, _ d: Int) -> Int {
    let y = m <= 2 ? y0 - 1 : y0
    let era = floorDiv(y, 400)
    let yoe = y - era * 400
    let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// `YYYY-MM-DD` for Unix seconds.
  public static func isoDate(unixSeconds: Int) -> String {
    let (y, m, d) = civil(fromDays: days(fromUnix: unixSeconds))
    return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2)
  }

  static func pad(_ value: Int, _ width: Int) -> String {
    let s = String(value)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
  }

  /// Floor division for positive `b`, written so that no `a` (Int.min included) overflows:
  /// dates can come from upstream JSON.
  static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : (a + 1) / b - 1 }
}
