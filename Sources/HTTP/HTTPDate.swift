/// IMF-fixdate (RFC 9110 §5.6.7) formatting and parsing, done arithmetically without the C library.
public enum HTTPDate {
  private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
  private static let months = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ]

  /// `Sun, 06 Nov 1994 08:49:37 GMT` for seconds since 1970.
  public static func format(epochSeconds: Int) -> String {
    let dayCount = CivilDate.days(fromUnix: epochSeconds)
    let secs = CivilDate.secondOfDay(epochSeconds)
    let (y, m, d) = CivilDate.civil(fromDays: dayCount)
    let weekday = days[((dayCount % 7) + 7) % 7]
    return
      "\(weekday), \(CivilDate.pad(d, 2)) \(months[m - 1]) \(y) \(CivilDate.pad(secs / 3600, 2)):\(CivilDate.pad(secs / 60 % 60, 2)):\(CivilDate.pad(secs % 60, 2)) GMT"
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
    return CivilDate.days(fromCivil: year, monthIndex + 1, day) * 86400 + hour * 3600 + minute * 60 + second
  }

}
