/// Number and time formatting for the views, by integer arithmetic (no formatters on the hot path).
enum Formatting {
  /// Compact counts as GitHub shows them: `987`, `1.2k`, `67.4k`, `1.3M`.
  static func compact(_ value: Int) -> String {
    let sign = value < 0 ? "-" : ""
    let n = value.magnitude
    if n < 1000 { return sign + String(n) }
    // 999,950 and up would round to "1000k", so they switch to millions.
    let (unit, divisor): (String, UInt) = n < 999_950 ? ("k", 1000) : ("M", 1_000_000)
    let tenths = (n * 10 + divisor / 2) / divisor
    let whole = tenths / 10
    let fraction = tenths % 10
    if whole >= 100 || fraction == 0 { return sign + String(whole) + unit }
    return sign + String(whole) + "." + String(fraction) + unit
  }

  /// `1,000` style grouping.
  static func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var out = value < 0 ? "-" : ""
    for (index, character) in digits.enumerated() {
      if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
      out.append(character)
    }
    return out
  }

  /// `+12` or `+1.2k`: stars gained.
  static func gain(_ value: Int) -> String { (value > 0 ? "+" : "") + compact(value) }

  /// Unix seconds of an ISO 8601 UTC time such as `2025-11-19T12:34:56Z`; nil when malformed.
  static func unixSeconds(iso: String) -> Int? {
    let bytes = Array(iso.utf8)
    guard bytes.count >= 19 else { return nil }
    func number(_ start: Int, _ count: Int) -> Int? {
      var result = 0
      for b in bytes[start..<(start + count)] {
        guard b >= 48 && b <= 57 else { return nil }
        result = result * 10 + Int(b - 48)
      }
      return result
    }
    guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
      let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
      (1...12).contains(month), (1...31).contains(day)
    else { return nil }
    return daysFromCivil(year: year, month: month, day: day) * 86400 + hour * 3600 + minute * 60 + second
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date.
  static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = (month + 9) % 12
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// `(year, month, day, hour, minute, second)` in UTC of Unix seconds.
  static func civil(_ unix: Int) -> (Int, Int, Int, Int, Int, Int) {
    let days = unix >= 0 ? unix / 86400 : (unix - 86399) / 86400
    let secs = unix - days * 86400
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    return (year, month, day, secs / 3600, secs % 3600 / 60, secs % 60)
  }

  /// `2026-11-22T01:05:00Z`.
  static func iso(_ unix: Int) -> String {
    let (y, mo, d, h, mi, s) = civil(unix)
    return "\(pad(y, 4))-\(pad(mo))-\(pad(d))T\(pad(h)):\(pad(mi)):\(pad(s))Z"
  }

  /// `14:05 UTC` for a time within a day, `Nov 23, 14:05 UTC` beyond.
  static func resetText(_ unix: Int, now: Int) -> String {
    let (_, mo, d, h, mi, _) = civil(unix)
    let clock = "\(pad(h)):\(pad(mi)) UTC"
    if unix - now < 86400 { return clock }
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    return "\(months[mo - 1]) \(d), \(clock)"
  }

  /// `just now`, `5 minutes ago`, `3 days ago`, `2 years ago`.
  static func relative(_ unix: Int, now: Int) -> String {
    let delta = max(0, now - unix)
    func ago(_ n: Int, _ unit: String) -> String { "\(n) \(unit)\(n == 1 ? "" : "s") ago" }
    switch delta {
    case ..<60: return "just now"
    case ..<3600: return ago(delta / 60, "minute")
    case ..<86400: return ago(delta / 3600, "hour")
    case ..<(86400 * 30): return ago(delta / 86400, "day")
    case ..<(86400 * 365): return ago(delta / (86400 * 30), "month")
    default: return ago(delta / (86400 * 365), "year")
    }
  }

  private static func pad(_ value: Int, _ width: Int = 2) -> String {
    let s = String(value)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
  }
}
