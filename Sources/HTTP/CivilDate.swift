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

  /// The second of the day (0-86399) of Unix seconds, rounding towards the past. Not
  /// `seconds - days * 86400`, which overflows for Int.min.
  public static func secondOfDay(_ unixSeconds: Int) -> Int { (unixSeconds % 86400 + 86400) % 86400 }

  /// `YYYY-MM-DD` for Unix seconds.
  public static func isoDate(unixSeconds: Int) -> String {
    let (y, m, d) = civil(fromDays: days(fromUnix: unixSeconds))
    return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2)
  }

  /// `YYYY-MM-DDTHH:MM:SSZ` for Unix seconds: the form GitHub's `created:` qualifier and its JSON use.
  public static func isoTimestamp(unixSeconds: Int) -> String {
    let days = days(fromUnix: unixSeconds)
    let seconds = secondOfDay(unixSeconds)
    let (y, m, d) = civil(fromDays: days)
    // Written as bytes into one string: a fragment deep in a tie bucket writes several of these (its
    // links and its windows' queries), and joining a dozen small strings cost more than the rest.
    var bytes: [UInt8] = []
    bytes.reserveCapacity(24)
    /// Two digits of `value` (0-99), then `separator`.
    func digits(_ value: Int, then separator: UInt8?) {
      bytes.append(UInt8(truncatingIfNeeded: 0x30 + value / 10))
      bytes.append(UInt8(truncatingIfNeeded: 0x30 + value % 10))
      if let separator { bytes.append(separator) }
    }
    // The year has four digits at least (more, or a sign, outside 0-9999); the other fields two.
    if (0...9999).contains(y) {
      digits(y / 100, then: nil)
      digits(y % 100, then: 0x2D)
    } else {
      bytes.append(contentsOf: pad(y, 4).utf8)
      bytes.append(0x2D)
    }
    digits(m, then: 0x2D)
    digits(d, then: 0x54)
    digits(seconds / 3600, then: 0x3A)
    digits(seconds % 3600 / 60, then: 0x3A)
    digits(seconds % 60, then: 0x5A)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Unix seconds of exactly `YYYY-MM-DDTHH:MM:SSZ` (years 1000–9999, a real calendar day, hours
  /// below 24, minutes and seconds below 60); nil for anything else.
  public static func unixSeconds(isoTimestamp text: Substring) -> Int? {
    var text = text
    return text.withUTF8 { unixSeconds(isoTimestamp: $0.span) }
  }

  /// `unixSeconds(isoTimestamp:)` of UTF-8 bytes the caller holds (no copy).
  public static func unixSeconds(isoTimestamp b: Span<UInt8>) -> Int? {
    guard b.count == 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A,
      b[19] == 0x5A
    else { return nil }
    func number(_ start: Int, _ count: Int) -> Int? {
      var value = 0
      for i in start..<(start + count) {
        guard b[i] >= 0x30 && b[i] <= 0x39 else { return nil }
        value = value * 10 + Int(b[i] - 0x30)
      }
      return value
    }
    guard let y = number(0, 4), let m = number(5, 2), let d = number(8, 2), let hh = number(11, 2),
      let mm = number(14, 2), let ss = number(17, 2), y >= 1000, (1...12).contains(m), d >= 1, hh < 24,
      mm < 60,
      ss < 60
    else { return nil }
    let day = days(fromCivil: y, m, d)
    // February 30th and the like do not round-trip.
    guard civil(fromDays: day) == (y, m, d) else { return nil }
    return day * 86400 + hh * 3600 + mm * 60 + ss
  }

  static func pad(_ value: Int, _ width: Int) -> String {
    let s = String(value)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
  }

  /// Floor division for positive `b`, written so that no `a` (Int.min included) overflows:
  /// dates can come from upstream JSON.
  static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : (a + 1) / b - 1 }
}
