/// The bytes a render produces. Rows (`MustacheRows`) write their fields through it; text is
/// HTML-escaped when the tag asks for it (`{{x}}`), and written as is for `{{{x}}}` and `{{& x}}`.
///
/// The bytes live in memory this value allocates and frees itself: an array append checks uniqueness
/// and capacity through generic code, and a render appends thousands of short runs. Noncopyable, so
/// no copy can outlive a reallocation or free the memory twice.
public struct MustacheOutput: ~Copyable {
  @usableFromInline var base: UnsafeMutablePointer<UInt8>
  /// Bytes written so far, all initialised: `base[0..<used]`.
  @usableFromInline var used = 0
  /// How many bytes were written so far.
  public var count: Int { used }
  @usableFromInline var capacity: Int
  /// Whether `append(_: String)` escapes: set by the renderer for each tag.
  public internal(set) var escapes = true

  init(capacity: Int) {
    self.capacity = max(256, capacity)
    base = .allocate(capacity: self.capacity)
  }

  deinit {
    base.deallocate()
  }

  /// A copy of the rendered bytes so far.
  public var bytes: [UInt8] { withBytes { Array($0) } }

  /// `body` with the rendered bytes, valid only during the call.
  func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    body(UnsafeBufferPointer(start: base, count: used))
  }

  /// Bytes written as they are (the caller's own text, already safe).
  @inlinable mutating func appendRaw(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let source = bytes.baseAddress else { return }
    let n = bytes.count
    if capacity - used < n { grow(n) }
    // `grow` left room for `n` more bytes after `used`; the source is the caller's, valid now.
    (base + used).initialize(from: source, count: n)
    used += n
  }

  /// Room for `n` more bytes: at least doubles, so appends stay amortised O(1).
  @usableFromInline mutating func grow(_ n: Int) {
    let wanted = max(capacity * 2, used + n)
    let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: wanted)
    // Bytes are trivial values: moving them is a copy, and the old block needs no deinitialising.
    grown.moveInitialize(from: base, count: used)
    base.deallocate()
    base = grown
    capacity = wanted
  }

  /// Text, escaped when the tag escapes.
  public mutating func append(_ text: String) {
    escapes ? appendEscaped(text) : appendRaw(text)
  }

  /// UTF-8 text the caller holds, escaped when the tag escapes: formatted text written without
  /// making a `String` first.
  public mutating func append(utf8 text: UnsafeBufferPointer<UInt8>) {
    escapes ? appendEscaped(utf8: text) : appendRaw(text)
  }

  /// An integer in decimal.
  public mutating func append(_ value: Int) {
    if value >= 0 && value < 10 {
      append(byte: UInt8(ascii: "0") + UInt8(value))
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
      appendRaw(UnsafeRawBufferPointer(rebasing: scratch[i...]).bindMemory(to: UInt8.self))
    }
  }

  /// A literal written as is, never escaped: the caller's own markup-free text (`/avatars/`).
  @inlinable public mutating func append(literal: StaticString) {
    // A StaticString's pointer is valid for its whole length.
    appendRaw(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
  }

  /// One byte written as is, never escaped: for text the caller has already made safe (percent-encoded).
  @inlinable public mutating func append(byte: UInt8) {
    if used == capacity { grow(1) }
    // `grow` left room for one more byte.
    (base + used).initialize(to: byte)
    used += 1
  }

  mutating func appendRaw(_ s: String) {
    // Native strings are read in place; only a foreign one is first copied (made contiguous).
    if s.utf8.withContiguousStorageIfAvailable({ appendRaw($0) }) == nil {
      var copy = s
      copy.withUTF8 { appendRaw($0) }
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
          if i > runStart { appendRaw(UnsafeBufferPointer(rebasing: text[runStart..<i])) }
          append(literal: entity)
          runStart = i + 1
        }
      }
      i += 1
    }
    if n > runStart { appendRaw(UnsafeBufferPointer(rebasing: text[runStart..<n])) }
  }
}
