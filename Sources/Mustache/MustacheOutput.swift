/// The bytes a render produces. Rows (`MustacheRows`) write their fields through it; text is
/// HTML-escaped when the tag asks for it (`{{x}}`), and written as is for `{{{x}}}` and `{{& x}}`.
public struct MustacheOutput {
  /// The rendered bytes so far.
  public var bytes: [UInt8] {
    get { storage }
    _modify { yield &storage }
  }
  @usableFromInline var storage: [UInt8]
  /// Whether `append(_: String)` escapes: set by the renderer for each tag.
  public internal(set) var escapes = true

  init(bytes: [UInt8]) {
    storage = bytes
  }

  /// Text, escaped when the tag escapes.
  public mutating func append(_ text: String) {
    escapes ? appendEscaped(text) : appendRaw(text)
  }

  /// UTF-8 text the caller holds, escaped when the tag escapes: formatted text written without
  /// making a `String` first.
  public mutating func append(utf8 text: UnsafeBufferPointer<UInt8>) {
    escapes ? appendEscaped(utf8: text) : storage.append(contentsOf: text)
  }

  /// An integer in decimal.
  public mutating func append(_ value: Int) {
    if value >= 0 && value < 10 {
      bytes.append(UInt8(ascii: "0") + UInt8(value))
      return
    }
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch space, enough for Int.min
    // Writes at most 20 bytes (19 digits and a sign) backwards into the 24-byte local scratch.
    withUnsafeMutableBytes(of: &digits) { scratch in
      var magnitude = value.magnitude
      var i = scratch.count
      repeat {
        i -= 1
        scratch[i] = UInt8(ascii: "0") + UInt8(magnitude % 10)
        magnitude /= 10
      } while magnitude > 0
      if value < 0 {
        i -= 1
        scratch[i] = UInt8(ascii: "-")
      }
      bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[i...]))
    }
  }

  /// A literal written as is, never escaped: the caller's own markup-free text (`/avatars/`).
  @inlinable public mutating func append(literal: StaticString) {
    // A StaticString's pointer is valid for its whole length.
    storage.append(
      contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
  }

  /// One byte written as is, never escaped: for text the caller has already made safe (percent-encoded).
  @inlinable public mutating func append(byte: UInt8) {
    storage.append(byte)
  }

  mutating func appendRaw(_ s: String) {
    // Native strings are read in place; only a foreign one is first copied (made contiguous).
    if s.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
      var copy = s
      copy.withUTF8 { bytes.append(contentsOf: $0) }
    }
  }

  mutating func appendEscaped(_ s: String) {
    // Native strings are read in place; only a foreign one is first copied (made contiguous).
    if s.utf8.withContiguousStorageIfAvailable({ appendEscaped(utf8: $0) }) == nil {
      var copy = s
      copy.withUTF8 { appendEscaped(utf8: $0) }
    }
  }

  private mutating func appendEscaped(utf8 text: UnsafeBufferPointer<UInt8>) {
    // One pass over the UTF-8 bytes, read only while the caller holds them; runs are sliced within
    // bounds (i < n).
    var runStart = 0
    var i = 0
    let n = text.count
    while i < n {
      let b = text[i]
      if b <= 0x3E {
        let entity: StaticString?
        switch b {
        case 0x26: entity = "&amp;"
        case 0x3C: entity = "&lt;"
        case 0x3E: entity = "&gt;"
        case 0x22: entity = "&quot;"
        case 0x27: entity = "&#39;"
        default: entity = nil
        }
        if let entity {
          if i > runStart { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<i])) }
          append(literal: entity)
          runStart = i + 1
        }
      }
      i += 1
    }
    if n > runStart { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<n])) }
  }
}
