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
  @inlinable @inline(__always) mutating func appendRaw(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let source = bytes.baseAddress else { return }
    let n = bytes.count
    if capacity - used < n { grow(n) }
    // `grow` left room for `n` more bytes after `used`; the source is the caller's, valid now.
    MustacheOutput.copy(source, to: base + used, count: n)
    used += n
  }

  /// Copies `count` bytes. Most runs a render copies are short, where a call to `memmove` costs more
  /// than the copy: up to 64 bytes are moved as 16-byte blocks (the last one overlapping), two
  /// overlapping words, halves or bytes, reading and writing only `source[0..<count]` and
  /// `target[0..<count]`.
  @inlinable @inline(__always)
  static func copy(_ source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>, count n: Int) {
    let from = UnsafeRawPointer(source)
    let to = UnsafeMutableRawPointer(target)
    if n > 16 {
      guard n <= 64 else {
        target.update(from: source, count: n)
        return
      }
      var offset = 0
      while offset + 16 < n {
        to.storeBytes(
          of: from.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self), toByteOffset: offset,
          as: SIMD16<UInt8>.self)
        offset += 16
      }
      to.storeBytes(
        of: from.loadUnaligned(fromByteOffset: n - 16, as: SIMD16<UInt8>.self), toByteOffset: n - 16,
        as: SIMD16<UInt8>.self)
    } else if n >= 8 {
      let head = from.loadUnaligned(as: UInt64.self)
      let tail = from.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
      to.storeBytes(of: head, as: UInt64.self)
      to.storeBytes(of: tail, toByteOffset: n - 8, as: UInt64.self)
    } else if n >= 4 {
      let head = from.loadUnaligned(as: UInt32.self)
      let tail = from.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
      to.storeBytes(of: head, as: UInt32.self)
      to.storeBytes(of: tail, toByteOffset: n - 4, as: UInt32.self)
    } else if n > 0 {
      // 1 to 3 bytes: first, middle and last (some the same byte).
      target[0] = source[0]
      target[n >> 1] = source[n >> 1]
      target[n - 1] = source[n - 1]
    }
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
  @inlinable public mutating func append(_ text: String) {
    escapes ? appendEscaped(text) : appendRaw(text)
  }

  /// UTF-8 text the caller holds, escaped when the tag escapes: formatted text written without
  /// making a `String` first.
  @inlinable public mutating func append(utf8 text: UnsafeBufferPointer<UInt8>) {
    escapes ? appendEscaped(utf8: text) : appendRaw(text)
  }

  /// UTF-8 text read in place, escaped when the tag escapes: a row's field written without making a
  /// `String` or touching a pointer.
  @inlinable public mutating func append(utf8 text: Span<UInt8>) {
    // The buffer is only read during this call, while the span's owner keeps it alive.
    text.withUnsafeBufferPointer { append(utf8: $0) }
  }

  /// An integer in decimal, written straight into the output two digits at a time.
  public mutating func append(_ value: Int) {
    var magnitude = value.magnitude
    let n = MustacheOutput.decimalCount(magnitude) + (value < 0 ? 1 : 0)
    if capacity - used < n { grow(n) }
    // `grow` left room for `n` bytes after `used`: the digits fill them from the end, then the sign.
    // Pairs are read at `2 * (magnitude % 100)`, within the table's 200 bytes.
    let pairs: StaticString = """
      00010203040506070809101112131415161718192021222324252627282930313233343536373839\
      40414243444546474849505152535455565758596061626364656667686970717273747576777879\
      8081828384858687888990919293949596979899
      """
    let table = pairs.utf8Start
    var at = base + used + n
    while magnitude >= 100 {
      let pair = Int(truncatingIfNeeded: magnitude % 100) &* 2
      magnitude /= 100
      at -= 2
      at.initialize(to: table[pair])
      (at + 1).initialize(to: table[pair &+ 1])
    }
    if magnitude >= 10 {
      let pair = Int(truncatingIfNeeded: magnitude) &* 2
      at -= 2
      at.initialize(to: table[pair])
      (at + 1).initialize(to: table[pair &+ 1])
    } else {
      at -= 1
      at.initialize(to: UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude))
    }
    if value < 0 { (at - 1).initialize(to: UInt8(ascii: "-")) }
    used += n
  }

  /// How many decimal digits `value` has (1 for 0).
  @inline(__always)
  private static func decimalCount(_ value: UInt) -> Int {
    if value < 100_000 {
      return value < 100 ? (value < 10 ? 1 : 2) : value < 10_000 ? (value < 1_000 ? 3 : 4) : 5
    }
    var count = 6
    var bound: UInt = 1_000_000
    // At most 20 digits; `bound` wraps only once the count is 20 and the loop ends.
    while count < 20 && value >= bound {
      count += 1
      bound &*= 10
    }
    return count
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

  @usableFromInline mutating func appendRaw(_ s: String) {
    // Native strings are read in place; only a foreign one is first copied (made contiguous).
    if s.utf8.withContiguousStorageIfAvailable({ appendRaw($0) }) == nil {
      var copy = s
      copy.withUTF8 { appendRaw($0) }
    }
  }

  @usableFromInline mutating func appendEscaped(_ s: String) {
    // Native strings are read in place; only a foreign one is first copied (made contiguous).
    if s.utf8.withContiguousStorageIfAvailable({ appendEscaped(utf8: $0) }) == nil {
      var copy = s
      copy.withUTF8 { appendEscaped(utf8: $0) }
    }
  }

  @usableFromInline mutating func appendEscaped(utf8 text: UnsafeBufferPointer<UInt8>) {
    guard let start = text.baseAddress, !text.isEmpty else { return }
    let n = text.count
    // Most text has nothing to escape: eight bytes at a time (the last word overlapping the one
    // before; shorter text gathered into one word, zero bytes are never special) are checked for any
    // of `"&'<>`, and the text is copied whole when none is found. Loads stay within `0..<n`.
    var i = 0
    let raw = UnsafeRawPointer(start)
    if n >= 8 {
      while i + 8 <= n {
        if MustacheOutput.mayNeedEscaping(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) { break }
        i += 8
      }
      if i + 8 > n {
        if i == n
          || !MustacheOutput.mayNeedEscaping(raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self))
        {
          appendRaw(text)
          return
        }
        i = n - 8
      }
    } else {
      let word =
        n >= 4
        ? UInt64(raw.loadUnaligned(as: UInt32.self))
          | UInt64(raw.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)) << 32
        : UInt64(start[0]) | UInt64(start[n >> 1]) << 8 | UInt64(start[n - 1]) << 16
      if !MustacheOutput.mayNeedEscaping(word) {
        appendRaw(text)
        return
      }
    }
    // Byte by byte from the first word that may need escaping; runs are sliced within bounds
    // (runStart <= i <= n). The mask has the bits of the five bytes, all below 64.
    let special: UInt64 = 1 << 0x22 | 1 << 0x26 | 1 << 0x27 | 1 << 0x3C | 1 << 0x3E
    var runStart = 0
    while i < n {
      let b = start[i]
      guard b < 64 && special & (1 << UInt64(b)) != 0 else {
        i += 1
        continue
      }
      let entity: StaticString
      switch b {
      case 0x26: entity = "&amp;"
      case 0x3C: entity = "&lt;"
      case 0x3E: entity = "&gt;"
      case 0x22: entity = "&quot;"
      default: entity = "&#39;"
      }
      if i > runStart { appendRaw(UnsafeBufferPointer(start: start + runStart, count: i - runStart)) }
      append(literal: entity)
      i += 1
      runStart = i
    }
    if n > runStart { appendRaw(UnsafeBufferPointer(start: start + runStart, count: n - runStart)) }
  }

  /// Whether any byte of `word` is `"` (0x22), `&` (0x26), `'` (0x27), `<` (0x3C) or `>` (0x3E). Setting
  /// a low bit maps `&` and `'` (only) to 0x27, and `<` and `>` (only) to 0x3E; a byte equal to the
  /// target then becomes zero after the XOR, which the classic zero-byte test finds (it is exact about
  /// whether the word holds a zero byte).
  @inline(__always)
  private static func mayNeedEscaping(_ word: UInt64) -> Bool {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    func hasZero(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
    return hasZero(word ^ (ones &* 0x22)) || hasZero((word | ones) ^ (ones &* 0x27))
      || hasZero((word | (ones &* 2)) ^ (ones &* 0x3E))
  }
}
