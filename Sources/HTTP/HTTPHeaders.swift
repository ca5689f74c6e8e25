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
    // Walks the fields in place: this runs for every request (Connection, Expect), so no arrays are built.
    for i in fields.indices where HTTPHeaders.equalsIgnoringCase(fields[i].name, name) {
      for part in fields[i].value.split(separator: ",") {
        if HTTPHeaders.equalsIgnoringCase(part.trimmingSpaces, token) { return true }
      }
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
