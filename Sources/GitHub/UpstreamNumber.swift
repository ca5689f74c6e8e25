/// Bounds for numbers from upstream, applied at decode time so that no value GitHub (or anything
/// posing as it) sends can overflow the arithmetic that later sums, scales or formats it.
enum UpstreamNumber {
  /// The largest count kept (10^12): far beyond any real star, fork or issue count, and small enough
  /// that a million of them still sum without overflow.
  static let maxCount = 1_000_000_000_000
  /// The largest id accepted (15 digits; GitHub's ids have 10 or fewer).
  static let maxID = 999_999_999_999_999
  /// The latest Unix time kept: 9999-12-31T23:59:59Z.
  static let maxTime = 253_402_300_799

  /// `value` within 0…`maxCount`.
  static func count(_ value: Int) -> Int { min(max(value, 0), maxCount) }

  /// A finite `value` rounded toward zero within 0…`upper`; nil for NaN and infinities.
  static func clamped(_ value: Double, upper: Int) -> Int? {
    guard value.isFinite else { return nil }
    if value <= 0 { return 0 }
    if value >= Double(upper) { return upper }
    return Int(value)
  }
}

extension KeyedDecodingContainer {
  /// A JSON number clamped to 0…`upper`: integers, fractions and exponents are accepted; a string,
  /// bool or null throws (the caller skips the value it belongs to).
  func decodeClamped(_ key: Key, upper: Int = UpstreamNumber.maxCount) throws -> Int {
    if let value = try? decode(Int.self, forKey: key) { return min(max(value, 0), upper) }
    let double = try decode(Double.self, forKey: key)
    guard let value = UpstreamNumber.clamped(double, upper: upper) else {
      throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not a finite number")
    }
    return value
  }

  /// A positive integer id up to `UpstreamNumber.maxID`; anything else throws.
  func decodeID(_ key: Key) throws -> Int {
    let value = try decode(Int.self, forKey: key)
    guard (1...UpstreamNumber.maxID).contains(value) else {
      throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "id out of range")
    }
    return value
  }
}

extension UnkeyedDecodingContainer {
  /// The next element as a count clamped to 0…`UpstreamNumber.maxCount`.
  mutating func decodeCount() throws -> Int {
    if let value = try? decode(Int.self) { return UpstreamNumber.count(value) }
    let double = try decode(Double.self)
    guard let value = UpstreamNumber.clamped(double, upper: UpstreamNumber.maxCount) else {
      throw DecodingError.dataCorruptedError(in: self, debugDescription: "not a finite number")
    }
    return value
  }
}
