/// IMF-fixdate (RFC 9110 §5.6.7) formatting and parsing, done arithmetically without the C library.
public enum HTTPDate {
  private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
  private static let months = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ]

  /// `Sun, 06 Nov 1994 08:49:37 GMT` for seconds since 1970.
  public static func format(epochSeconds: Int) -> String {
    let dayCount = floorDiv(epochSeconds, 86400)
    let secs = epochSeconds - dayCount * 86400
    let (y, m, d) = civil(fromDays: dayCount)
    let weekday = days[((dayCount % 7) + 7) % 7]
    return
      "\(weekday), \(pad(d)) \(months[m - 1]) \(y) \(pad(secs / 3600)):\(pad(secs / 60 % 60)):\(pad(secs % 60)) GMT"
  }

  /// Seconds since 1970 for an IMF-fixdate, or nil if it is not one.
  public static func parse(_ text: String) -> Int? {
    let b = Array(text.utf8)
    guard b.count == 29, b[3] == 44, b[4] == 32, b[7] == 32, b[11] == 32, b[16] == 32, b[19] == 58,
      b[22] == 58,
      b[25] == 32, b[26] == 71, b[27] == 77, b[28] == 84
    else { return nil }
    func num(_ from: Int, _ n: Int) -> Int? {
      var v = 0
      for i in from..<from + n {
        guard b[i] >= 48 && b[i] <= 57 else { return nil }
        v = v * 10 + Int(b[i] - 48)
      }
      return v
    }
    let monthName = String(decoding: b[8..<11], as: UTF8.self)
    guard let day = num(5, 2), let year = num(12, 4), let hour = num(17, 2), let minute = num(20, 2),
      let second = num(23, 2), let monthIndex = months.firstIndex(of: monthName),
      day >= 1, day <= 31, hour < 24, minute < 60, second < 61
    else { return nil }
    return days(fromCivil: year, monthIndex + 1, day) * 86400 + hour * 3600 + minute * 60 + second
  }

  private static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

  private static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : (a - b + 1) / b }

  // Days/civil conversions in the proleptic Gregorian calendar (era-based algorithm).
  private static func civil(fromDays z0: Int) -> (Int, Int, Int) {
    let z = z0 + 719468
    let era = floorDiv(z, 146097)
    let doe = z - era * 146097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
  }

  private static func days(fromCivil y0: Int, _ m: Int, _ d: Int) -> Int {
    let y = m <= 2 ? y0 - 1 : y0
    let era = floorDiv(y, 400)
    let yoe = y - era * 400
    let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146097 + doe - 719468
  }
}
