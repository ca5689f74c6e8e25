/// A minimal streaming JSON writer into a byte buffer; commas are placed automatically.
struct JSONWriter {
  /// The bytes written so far.
  var bytes: [UInt8] = []
  private var first = true

  init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

  mutating func objectStart() {
    separate()
    bytes.append(UInt8(ascii: "{"))
    first = true
  }

  mutating func objectEnd() {
    bytes.append(UInt8(ascii: "}"))
    first = false
  }

  mutating func arrayStart() {
    separate()
    bytes.append(UInt8(ascii: "["))
    first = true
  }

  mutating func arrayEnd() {
    bytes.append(UInt8(ascii: "]"))
    first = false
  }

  /// Writes a key; the next value follows it without a comma.
  mutating func key(_ k: String) {
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

  mutating func int(_ v: Int) { raw(String(v)) }
  mutating func bool(_ v: Bool) { raw(v ? "true" : "false") }
  mutating func null() { raw("null") }
  mutating func double(_ v: Double) { raw(v.isFinite ? String(v) : "0") }
  mutating func optionalString(_ s: String?) { if let s { string(s) } else { null() } }

  mutating func field(_ k: String, _ v: String) {
    key(k)
    string(v)
  }
  mutating func field(_ k: String, _ v: Int) {
    key(k)
    int(v)
  }
  mutating func field(_ k: String, _ v: Bool) {
    key(k)
    bool(v)
  }
  mutating func field(_ k: String, _ v: String?) {
    key(k)
    optionalString(v)
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
