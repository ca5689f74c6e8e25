import HTTP

/// A closed interval from GitHub's range syntax (`>n`, `>=n`, `<n`, `<=n`, `a..b`, `*..b`, `a..*`, `n`),
/// over integers (`stars:`, `forks:`, `size:`) or Unix seconds (`created:`, `pushed:`).
struct QualifierRange: Equatable {
  var lower: Int?
  var upper: Int?

  func contains(_ v: Int) -> Bool { (lower.map { v >= $0 } ?? true) && (upper.map { v <= $0 } ?? true) }

  /// Parses a numeric condition; nil when malformed.
  init?(number text: Substring) {
    self.init(text) { s in Int(s).map { ($0, $0) } }
  }

  /// Parses a date condition on `YYYY-MM-DD` or an ISO 8601 timestamp; nil when malformed.
  /// A bare date stands for its whole UTC day, so `>2025-01-01` starts on January 2nd.
  init?(date text: Substring) {
    self.init(text, value: QualifierRange.instant)
  }

  /// `value` maps one operand to the first and last point it covers (equal for numbers and seconds).
  private init?(_ text: Substring, value: (Substring) -> (Int, Int)?) {
    if text.hasPrefix(">=") {
      guard let v = value(text.dropFirst(2)) else { return nil }
      lower = v.0
    } else if text.hasPrefix(">") {
      guard let v = value(text.dropFirst()) else { return nil }
      lower = v.1 < Int.max ? v.1 + 1 : Int.max
    } else if text.hasPrefix("<=") {
      guard let v = value(text.dropFirst(2)) else { return nil }
      upper = v.1
    } else if text.hasPrefix("<") {
      guard let v = value(text.dropFirst()) else { return nil }
      upper = v.0 > Int.min ? v.0 - 1 : Int.min
    } else if let dots = text.firstRange(of: "..") {
      let a = text[..<dots.lowerBound]
      let b = text[dots.upperBound...]
      if a != "*" {
        guard let v = value(a) else { return nil }
        lower = v.0
      }
      if b != "*" {
        guard let v = value(b) else { return nil }
        upper = v.1
      }
    } else {
      guard let v = value(text) else { return nil }
      lower = v.0
      upper = v.1
    }
  }

  /// The Unix seconds a date or timestamp covers: a whole day, minute or second, shifted by any offset.
  static func instant(_ s: Substring) -> (Int, Int)? {
    let b = Array(s.utf8)
    guard b.count >= 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
      let y = digits(b, 0, 4), let m = digits(b, 5, 2), let d = digits(b, 8, 2),
      (1...12).contains(m), d >= 1
    else { return nil }
    let day = CivilDate.days(fromCivil: y, m, d)
    // Reject February 30th and the like: the day must round-trip.
    let civil = CivilDate.civil(fromDays: day)
    guard civil.year == y && civil.month == m && civil.day == d else { return nil }
    let start = day * 86400
    if b.count == 10 { return (start, start + 86399) }
    guard b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " "), b.count >= 16,
      let hh = digits(b, 11, 2), let mm = digits(b, 14, 2), b[13] == UInt8(ascii: ":"), hh < 24, mm < 60
    else { return nil }
    var i = 16
    var ss: Int?
    if i < b.count, b[i] == UInt8(ascii: ":") {
      guard let s = digits(b, i + 1, 2), s < 60 else { return nil }
      ss = s
      i += 3
    }
    var offset = 0
    if i < b.count {
      if b[i] == UInt8(ascii: "Z") && i + 1 == b.count {
        offset = 0
      } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-"), b.count == i + 6,
        b[i + 3] == UInt8(ascii: ":"), let oh = digits(b, i + 1, 2), let om = digits(b, i + 4, 2),
        oh < 24, om < 60
      {
        offset = (oh * 3600 + om * 60) * (b[i] == UInt8(ascii: "+") ? 1 : -1)
      } else {
        return nil
      }
    }
    let t = start + hh * 3600 + mm * 60 + (ss ?? 0) - offset
    return (t, ss == nil ? t + 59 : t)
  }

  private static func digits(_ b: [UInt8], _ at: Int, _ n: Int) -> Int? {
    guard at + n <= b.count else { return nil }
    var v = 0
    for k in at..<(at + n) {
      let c = b[k]
      guard c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") else { return nil }
      v = v * 10 + Int(c - UInt8(ascii: "0"))
    }
    return v
  }
}
