/// Writes a short string (a path, a count, a phrase) straight into its final storage: no intermediate
/// strings, and no heap allocation at all for results of up to 15 bytes (Swift's small strings), or
/// none at all when written into a render (`write(capacity:to:_:)`). Every write is bounds-checked
/// against the capacity the caller gave: text beyond it is dropped, never written out of bounds.
///
/// ```swift
/// let path = TextBuilder.make(capacity: 20) { out in
///   out.ascii("/page/")
///   out.decimal(42)
/// }  // "/page/42"
/// ```
public struct TextBuilder {
  @usableFromInline let buffer: UnsafeMutableBufferPointer<UInt8>
  /// Bytes written so far.
  @inlinable public var count: Int { written }
  @usableFromInline var written = 0

  @inlinable init(buffer: UnsafeMutableBufferPointer<UInt8>) {
    self.buffer = buffer
  }

  /// The ASCII or UTF-8 text `write` produces, cut at `capacity` bytes (callers pass an upper bound).
  @inlinable public static func make(capacity: Int, _ write: (inout TextBuilder) -> Void) -> String {
    String(unsafeUninitializedCapacity: capacity) { buffer in
      // The buffer is only used inside this closure, and every write checks `count < buffer.count`.
      var builder = TextBuilder(buffer: buffer)
      write(&builder)
      return builder.count
    }
  }

  /// The text `write` produces (cut at `capacity` bytes) appended to a render's output, escaped when
  /// the tag escapes, through scratch space on the stack: no `String` is made.
  @inlinable public static func write(
    capacity: Int, to output: inout MustacheOutput, _ write: (inout TextBuilder) -> Void
  ) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
      // The scratch lives until this closure returns; only `builder.count` bytes were written.
      var builder = TextBuilder(buffer: buffer)
      write(&builder)
      output.append(utf8: UnsafeBufferPointer(rebasing: buffer[0..<builder.count]))
    }
  }

  /// The length of `decimal`'s output for `value`.
  public static func decimalCount(_ value: Int) -> Int {
    var magnitude = value.magnitude
    var count = value < 0 ? 2 : 1
    while magnitude >= 10 {
      magnitude /= 10
      count += 1
    }
    return count
  }

  /// One byte.
  @inlinable public mutating func byte(_ value: UInt8) {
    guard written < buffer.count else { return }
    buffer[written] = value
    written += 1
  }

  /// The bytes of a literal.
  @inlinable public mutating func ascii(_ text: StaticString) {
    // A StaticString's pointer is valid for its whole length.
    for index in 0..<text.utf8CodeUnitCount { byte(text.utf8Start[index]) }
  }

  /// A decimal integer.
  @inlinable public mutating func decimal(_ value: Int) {
    if value < 0 { byte(UInt8(ascii: "-")) }
    var magnitude = value.magnitude
    var divisor: UInt = 1
    while divisor <= magnitude / 10 { divisor *= 10 }
    repeat {
      byte(UInt8(ascii: "0") + UInt8(magnitude / divisor))
      magnitude %= divisor
      divisor /= 10
    } while divisor > 0
  }
}
