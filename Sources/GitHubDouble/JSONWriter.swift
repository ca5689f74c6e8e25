import HTTP

/// A minimal streaming JSON writer into a byte buffer; commas are placed automatically.
struct JSONWriter {
  /// The bytes written so far.
  var bytes: [UInt8] = []
  private var first = true

  init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

  mutating func objectStart() { open(UInt8(ascii: "{")) }
  mutating func objectEnd() { close(UInt8(ascii: "}")) }
  mutating func arrayStart() { open(UInt8(ascii: "[")) }
  mutating func arrayEnd() { close(UInt8(ascii: "]")) }

  /// Opens an object or array: its first member follows without a comma.
  private mutating func open(_ bracket: UInt8) {
    separate()
    bytes.append(bracket)
    first = true
  }

  /// Closes an object or array: a member after it takes a comma.
  private mutating func close(_ bracket: UInt8) {
    bytes.append(bracket)
    first = false
  }

  /// Writes a computed key (escaped); the next value follows it without a comma.
  mutating func dynamicKey(_ k: String) {
    separate()
    appendQuoted(k)
    bytes.append(UInt8(ascii: ":"))
    first = true
  }

  mutating func string(_ s: String) {
    separate()
    appendQuoted(s)
    first = false
  }

  mutating func raw(_ s: String) {
    separate()
    bytes.append(contentsOf: s.utf8)
    first = false
  }

  mutating func int(_ v: Int) {
    separate()
    appendDigits(v)
    first = false
  }
  mutating func bool(_ v: Bool) { raw(v ? "true" : "false") }
  mutating func null() { raw("null") }
  mutating func double(_ v: Double) { raw(v.isFinite ? String(v) : "0") }
  mutating func optionalString(_ s: String?) { if let s { string(s) } else { null() } }

  // MARK: Fast paths for hot encoders (no intermediate Strings)

  /// Writes a key known to need no escaping.
  mutating func key(_ k: StaticString) {
    separate()
    bytes.append(UInt8(ascii: "\""))
    appendStatic(k)
    bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    first = true
  }

  /// `"key":"<prefix><suffix>"`, where `prefix` is already JSON-escaped (see `escaped`) and the
  /// static suffix needs no escaping.
  mutating func joined(_ k: StaticString, _ prefix: [UInt8], _ suffix: StaticString) {
    key(k)
    bytes.append(UInt8(ascii: "\""))
    bytes.append(contentsOf: prefix)
    appendStatic(suffix)
    bytes.append(UInt8(ascii: "\""))
    first = false
  }

  mutating func field(_ k: StaticString, _ v: Int) {
    key(k)
    int(v)
  }
  mutating func field(_ k: StaticString, _ v: Bool) {
    key(k)
    bool(v)
  }
  mutating func field(_ k: StaticString, _ v: String) {
    key(k)
    string(v)
  }
  mutating func field(_ k: StaticString, _ v: String?) {
    key(k)
    optionalString(v)
  }

  /// `"key":"2024-01-30T17:14:50Z"` from Unix seconds, written in place.
  mutating func date(_ k: StaticString, _ unix: Int) {
    key(k)
    bytes.append(UInt8(ascii: "\""))
    let days = CivilDate.days(fromUnix: unix)
    let secs = unix - days * 86400
    let (y, m, d) = CivilDate.civil(fromDays: days)
    appendPadded(y, 4)
    bytes.append(UInt8(ascii: "-"))
    appendPadded(m, 2)
    bytes.append(UInt8(ascii: "-"))
    appendPadded(d, 2)
    bytes.append(UInt8(ascii: "T"))
    appendPadded(secs / 3600, 2)
    bytes.append(UInt8(ascii: ":"))
    appendPadded(secs / 60 % 60, 2)
    bytes.append(UInt8(ascii: ":"))
    appendPadded(secs % 60, 2)
    bytes.append(contentsOf: [UInt8(ascii: "Z"), UInt8(ascii: "\"")])
    first = false
  }

  /// The JSON-escaped bytes of `s`, without quotes, for use as a `joined` prefix.
  static func escaped(_ s: String) -> [UInt8] {
    var w = JSONWriter(capacity: s.utf8.count + 2)
    w.string(s)
    return Array(w.bytes.dropFirst().dropLast())
  }

  private mutating func appendStatic(_ s: StaticString) {
    // The buffer is the static string's own UTF-8 storage, read only inside the closure.
    s.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  private mutating func appendDigits(_ v: Int) {
    if v < 0 {
      bytes.append(UInt8(ascii: "-"))
      if v == Int.min {
        bytes.append(contentsOf: Array("9223372036854775808".utf8))
        return
      }
      appendDigits(-v)
      return
    }
    var divisor = 1
    while divisor <= v / 10 { divisor *= 10 }
    var n = v
    while divisor > 0 {
      bytes.append(UInt8(48 + n / divisor))
      n %= divisor
      divisor /= 10
    }
  }

  private mutating func appendPadded(_ v: Int, _ width: Int) {
    var divisor = 1
    for _ in 1..<width { divisor *= 10 }
    var n = max(0, v)
    if n >= divisor * 10 {
      appendDigits(n)
      return
    }
    while divisor > 0 {
      bytes.append(UInt8(48 + n / divisor))
      n %= divisor
      divisor /= 10
    }
  }

  private mutating func separate() {
    if !first { bytes.append(UInt8(ascii: ",")) }
  }

  private mutating func appendQuoted(_ s: String) {
    bytes.append(UInt8(ascii: "\""))
    for b in s.utf8 {
      switch b {
      case UInt8(ascii: "\""): bytes.append(contentsOf: [92, 34])
      case UInt8(ascii: "\\"): bytes.append(contentsOf: [92, 92])
      case 0x0A: bytes.append(contentsOf: [92, UInt8(ascii: "n")])
      case 0x0D: bytes.append(contentsOf: [92, UInt8(ascii: "r")])
      case 0x09: bytes.append(contentsOf: [92, UInt8(ascii: "t")])
      case 0..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        bytes.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, hex[Int(b >> 4)], hex[Int(b & 15)]])
      default: bytes.append(b)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }
}
