import HTTP
import Mustache

/// Number and time formatting for the views, by integer arithmetic (no formatters on the hot path).
enum Formatting {
  /// Compact counts as GitHub shows them: `987`, `1.2k`, `67.4k`, `1.3M`, `2B`. Any `Int` is
  /// accepted (`Int.min` included); nothing overflows.
  static func compact(_ value: Int) -> String {
    TextBuilder.make(capacity: compactCapacity) { compact(value, into: &$0) }
  }

  /// The most bytes `compact` writes: a sign, 19 digits and a unit.
  static let compactCapacity = 21

  /// `compact(value)` written into `out`.
  static func compact(_ value: Int, into out: inout TextBuilder) {
    let n = value.magnitude
    if value < 0 { out.byte(UInt8(ascii: "-")) }
    if n < 1000 {
      out.decimal(Int(n))
      return
    }
    // 999,950 and up would round to "1000k", so they switch to millions, and so on.
    let (unit, divisor): (UInt8, UInt) =
      n < 999_950
      ? (UInt8(ascii: "k"), 1000)
      : n < 999_950_000 ? (UInt8(ascii: "M"), 1_000_000) : (UInt8(ascii: "B"), 1_000_000_000)
    // Rounded tenths without `n * 10`, which could overflow.
    let step = divisor / 10
    let tenths = n / step + (n % step >= step / 2 ? 1 : 0)
    out.decimal(Int(tenths / 10))
    if tenths / 10 < 100 && tenths % 10 != 0 {
      out.byte(UInt8(ascii: "."))
      out.decimal(Int(tenths % 10))
    }
    out.byte(unit)
  }

  /// `1 fork`, `6.2k forks`: a compact count with its noun, singular only for exactly one.
  static func counted(_ value: Int, _ noun: StaticString) -> String {
    TextBuilder.make(capacity: countedCapacity(noun)) { counted(value, noun, into: &$0) }
  }

  /// The most bytes `counted` writes with `noun`.
  static func countedCapacity(_ noun: StaticString) -> Int { compactCapacity + noun.utf8CodeUnitCount + 2 }

  /// `counted(value, noun)` written into `out`.
  static func counted(_ value: Int, _ noun: StaticString, into out: inout TextBuilder) {
    compact(value, into: &out)
    out.byte(UInt8(ascii: " "))
    out.ascii(noun)
    if value != 1 { out.byte(UInt8(ascii: "s")) }
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
    unixSeconds(utf8: iso.utf8.span)
  }

  /// `unixSeconds(iso:)` of UTF-8 bytes the caller holds.
  static func unixSeconds(utf8 bytes: Span<UInt8>) -> Int? {
    guard bytes.count >= 19 else { return nil }
    func number(_ start: Int, _ count: Int) -> Int? {
      var result = 0
      for i in start..<(start + count) {
        let b = bytes[i]
        guard b >= 48 && b <= 57 else { return nil }
        result = result * 10 + Int(b - 48)
      }
      return result
    }
    guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
      let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
      (1...12).contains(month), (1...31).contains(day)
    else { return nil }
    return CivilDate.days(fromCivil: year, month, day) * 86400 + hour * 3600 + minute * 60 + second
  }

  /// `(year, month, day, hour, minute, second)` in UTC of Unix seconds.
  static func civil(_ unix: Int) -> (Int, Int, Int, Int, Int, Int) {
    let days = CivilDate.days(fromUnix: unix)
    let secs = unix - days * 86400
    let (year, month, day) = CivilDate.civil(fromDays: days)
    return (year, month, day, secs / 3600, secs % 3600 / 60, secs % 60)
  }

  /// `2026-11-22T01:05:00Z`.
  static func iso(_ unix: Int) -> String {
    let (y, mo, d, h, mi, s) = civil(unix)
    return "\(pad(y, 4))-\(pad(mo))-\(pad(d))T\(pad(h)):\(pad(mi)):\(pad(s))Z"
  }

  /// `14:05 UTC` for a time on today's UTC date, `Nov 23, 14:05 UTC` on another date this year, and
  /// `Jan 2, 2027, 14:05 UTC` in another year. The text of a `<time datetime>` that the page's script
  /// rewrites into the reader's local time.
  static func resetText(_ unix: Int, now: Int) -> String {
    let (y, mo, d, h, mi, _) = civil(unix)
    let (nowYear, nowMonth, nowDay, _, _, _) = civil(now)
    let clock = "\(pad(h)):\(pad(mi)) UTC"
    if (y, mo, d) == (nowYear, nowMonth, nowDay) { return clock }
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    if y == nowYear { return "\(months[mo - 1]) \(d), \(clock)" }
    return "\(months[mo - 1]) \(d), \(y), \(clock)"
  }

  /// `just now`, `5 minutes ago`, `3 days ago`, `2 years ago`.
  static func relative(_ unix: Int, now: Int) -> String {
    TextBuilder.make(capacity: relativeCapacity) { relative(unix, now: now, into: &$0) }
  }

  /// The most bytes `relative` writes: 19 digits, " minutes ago".
  static let relativeCapacity = 32

  /// `relative(unix, now:)` written into `out`.
  static func relative(_ unix: Int, now: Int, into out: inout TextBuilder) {
    // Saturating: upstream times may be anything.
    let (difference, overflow) = now.subtractingReportingOverflow(unix)
    let delta = overflow ? (unix < 0 ? Int.max : 0) : max(0, difference)
    func ago(_ n: Int, _ unit: StaticString) {
      out.decimal(n)
      out.byte(UInt8(ascii: " "))
      out.ascii(unit)
      if n != 1 { out.byte(UInt8(ascii: "s")) }
      out.ascii(" ago")
    }
    switch delta {
    case ..<60: out.ascii("just now")
    case ..<3600: ago(delta / 60, "minute")
    case ..<86400: ago(delta / 3600, "hour")
    case ..<(86400 * 30): ago(delta / 86400, "day")
    case ..<(86400 * 365): ago(delta / (86400 * 30), "month")
    default: ago(delta / (86400 * 365), "year")
    }
  }

  private static func pad(_ value: Int, _ width: Int = 2) -> String {
    let s = String(value)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
  }
}
