/// An ordered list of header fields. Duplicates are kept; lookups ignore ASCII case.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
  /// The fields in the order they were added or received.
  public private(set) var fields: [(name: String, value: String)]

  /// An empty header list.
  public init() { fields = [] }

  /// Headers from name-value pairs, in order.
  public init(_ pairs: [(String, String)]) { fields = pairs.map { (name: $0.0, value: $0.1) } }

  /// Headers from a literal, in order.
  public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

  /// The number of fields, duplicates counted.
  public var count: Int { fields.count }

  /// Appends a field, keeping any earlier one of the same name.
  public mutating func add(name: String, value: String) { fields.append((name: name, value: value)) }

  /// Replaces every field of this name with one field.
  public mutating func replaceOrAdd(name: String, value: String) {
    remove(name: name)
    fields.append((name: name, value: value))
  }

  /// Removes every field of this name.
  public mutating func remove(name: String) {
    fields.removeAll { HTTPHeaders.equalsIgnoringCase($0.name, name) }
  }

  /// The first value of this name, or nil.
  public subscript(name: String) -> String? {
    for field in fields where HTTPHeaders.equalsIgnoringCase(field.name, name) { return field.value }
    return nil
  }

  /// Every value of this name, in order.
  public func values(for name: String) -> [String] {
    fields.filter { HTTPHeaders.equalsIgnoringCase($0.name, name) }.map(\.value)
  }

  /// Whether a field of this name exists.
  public func contains(name: String) -> Bool { self[name] != nil }

  /// Whether a comma-separated header of this name lists `token` (ASCII case-insensitive).
  public func containsToken(_ token: String, in name: String) -> Bool {
    // This runs for every request (Connection, Expect, Vary), so the values are scanned in place.
    var token = token
    return token.withUTF8 { wanted in
      for i in fields.indices where HTTPHeaders.equalsIgnoringCase(fields[i].name, name) {
        var value = fields[i].value
        // Both buffers are only read inside the closures that lend them.
        if value.withUTF8({ HTTPHeaders.list($0, contains: wanted) }) { return true }
      }
      return false
    }
  }

  /// Whether the comma-separated `list` has an element equal to `token` once spaces and tabs around
  /// it are dropped.
  private static func list(_ list: UnsafeBufferPointer<UInt8>, contains token: UnsafeBufferPointer<UInt8>)
    -> Bool
  {
    var start = 0
    while start < list.count {
      var end = start
      while end < list.count && list[end] != UInt8(ascii: ",") { end += 1 }
      if equalsIgnoringCase(UnsafeBufferPointer(rebasing: list[trimmed(list, start, end)]), token) {
        return true
      }
      start = end + 1
    }
    return false
  }

  /// Iterates the fields in order.
  public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
    fields.makeIterator()
  }

  /// Equal when the same fields appear in the same order (names compared exactly).
  public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
    lhs.fields.count == rhs.fields.count
      && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
  }

  /// ASCII case-insensitive comparison of two strings, as header names require. Header lookups run
  /// several times per request: this compares the strings' contiguous UTF-8 in place, where the generic
  /// form below walks two `UTF8View`s through unspecialised witness calls.
  public static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    // The buffers are only read inside the closures that lend them.
    let fast = a.utf8.withContiguousStorageIfAvailable { lhs in
      b.utf8.withContiguousStorageIfAvailable { rhs in equalsIgnoringCase(lhs, rhs) }
    }
    guard let result = fast ?? nil else { return equalsIgnoringCase(Substring(a), Substring(b)) }
    return result
  }

  /// The range `start..<end` of `bytes` without the spaces and tabs at either end.
  public static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Range<Int> {
    var lower = start
    var upper = end
    while lower < upper && (bytes[lower] == 0x20 || bytes[lower] == 0x09) { lower += 1 }
    while upper > lower && (bytes[upper - 1] == 0x20 || bytes[upper - 1] == 0x09) { upper -= 1 }
    return lower..<upper
  }

  /// ASCII case-insensitive comparison of two byte runs of the same length or not.
  public static func equalsIgnoringCase(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>)
    -> Bool
  {
    guard lhs.count == rhs.count else { return false }
    for i in 0..<lhs.count {
      let x = lhs[i]
      let y = rhs[i]
      // Bytes differing only in bit 0x20 are the same letter when one of them is a letter.
      if x != y && (x ^ y != 0x20 || !(x | 0x20 >= 97 && x | 0x20 <= 122)) { return false }
    }
    return true
  }

  /// ASCII case-insensitive comparison, as header names require.
  public static func equalsIgnoringCase<A: StringProtocol, B: StringProtocol>(_ a: A, _ b: B) -> Bool {
    let lhs = a.utf8
    let rhs = b.utf8
    guard lhs.count == rhs.count else { return false }
    for (x, y) in zip(lhs, rhs) where x != y {
      let lx = x >= 65 && x <= 90 ? x | 0x20 : x
      let ly = y >= 65 && y <= 90 ? y | 0x20 : y
      if lx != ly { return false }
    }
    return true
  }
}
