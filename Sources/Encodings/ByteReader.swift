/// Reads what `ByteWriter` wrote. Every read is bounds-checked and returns nil on truncated,
/// overlong or invalid input, so a foreign or corrupted value is rejected rather than trusted.
public struct ByteReader: Sendable {
  private let bytes: [UInt8]
  private var offset = 0

  /// A reader over `bytes`, starting at the first byte.
  public init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// True when every byte has been read (a decoder checks this to refuse trailing garbage).
  public var isAtEnd: Bool { offset == bytes.count }

  /// One raw byte.
  public mutating func byte() -> UInt8? {
    guard offset < bytes.count else { return nil }
    defer { offset += 1 }
    return bytes[offset]
  }

  /// The next `count` raw bytes.
  public mutating func raw(_ count: Int) -> ArraySlice<UInt8>? {
    guard count >= 0, count <= bytes.count - offset else { return nil }
    defer { offset += count }
    return bytes[offset..<offset + count]
  }

  /// An unsigned varint of at most 10 bytes that fits in 64 bits.
  public mutating func unsigned() -> UInt64? {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while let next = byte() {
      let group = UInt64(next & 0x7F)
      if shift == 63, group > 1 { return nil }
      result |= group << shift
      if next & 0x80 == 0 { return result }
      shift += 7
      if shift > 63 { return nil }
    }
    return nil
  }

  /// A zigzag signed integer.
  public mutating func signed() -> Int? {
    guard let raw = unsigned() else { return nil }
    let value = Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    return Int(exactly: value)
  }

  /// A count no larger than `limit` (lengths and array sizes).
  public mutating func count(max limit: Int) -> Int? {
    guard let raw = unsigned(), raw <= UInt64(max(0, limit)) else { return nil }
    return Int(raw)
  }

  /// A boolean byte; anything but 0 or 1 is invalid.
  public mutating func bool() -> Bool? {
    switch byte() {
    case 0: return false
    case 1: return true
    default: return nil
    }
  }

  /// A length-prefixed string of at most `maxBytes` bytes of valid UTF-8.
  public mutating func string(maxBytes: Int = 65_536) -> String? {
    guard let length = count(max: maxBytes), let slice = raw(length) else { return nil }
    return String(validating: slice, as: UTF8.self)
  }

  /// A count of at most `limit`, then that many elements read by `element`; nil when the count or
  /// any element is invalid.
  public mutating func array<Element>(max limit: Int, _ element: (inout ByteReader) -> Element?) -> [Element]?
  {
    guard let count = count(max: limit) else { return nil }
    var result: [Element] = []
    result.reserveCapacity(count)
    for _ in 0..<count {
      guard let value = element(&self) else { return nil }
      result.append(value)
    }
    return result
  }

  /// An optional string (presence byte, then the string).
  public mutating func optionalString(maxBytes: Int = 65_536) -> String?? {
    guard let present = bool() else { return nil }
    guard present else { return .some(nil) }
    guard let value = string(maxBytes: maxBytes) else { return nil }
    return .some(value)
  }
}
