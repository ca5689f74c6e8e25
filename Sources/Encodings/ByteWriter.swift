/// Appends a compact binary encoding: unsigned LEB128 varints, zigzag signed integers and
/// length-prefixed UTF-8 strings. `ByteReader` reads it back with bounds checks.
public struct ByteWriter: Sendable {
  /// The bytes written so far.
  public private(set) var bytes: [UInt8] = []

  /// An empty writer with room for `capacity` bytes.
  public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

  /// One raw byte.
  public mutating func byte(_ value: UInt8) { bytes.append(value) }

  /// Raw bytes, without a length.
  public mutating func raw(_ value: some Sequence<UInt8>) { bytes.append(contentsOf: value) }

  /// An unsigned varint (7 bits per byte, low group first).
  public mutating func unsigned(_ value: UInt64) {
    var rest = value
    while rest >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
      rest >>= 7
    }
    bytes.append(UInt8(rest))
  }

  /// A signed integer, zigzag-encoded so small negatives stay short.
  public mutating func signed(_ value: Int) {
    let wide = Int64(value)
    unsigned(UInt64(bitPattern: (wide << 1) ^ (wide >> 63)))
  }

  /// A boolean as one byte.
  public mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

  /// A string as its UTF-8 length and bytes.
  public mutating func string(_ value: String) {
    unsigned(UInt64(value.utf8.count))
    bytes.append(contentsOf: value.utf8)
  }

  /// A count, then each element written by `element` (read back with `ByteReader.array`).
  public mutating func array<Elements: Collection>(
    _ values: Elements, _ element: (inout ByteWriter, Elements.Element) -> Void
  ) {
    unsigned(UInt64(values.count))
    for value in values { element(&self, value) }
  }

  /// An optional string: a presence byte, then the string.
  public mutating func optionalString(_ value: String?) {
    bool(value != nil)
    if let value { string(value) }
  }
}
