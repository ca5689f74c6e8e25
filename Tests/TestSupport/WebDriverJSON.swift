import Foundation

/// A JSON value as exchanged with a WebDriver server (command bodies, script results, CDP replies).
public enum WebDriverJSON: Sendable, Equatable, Codable, CustomStringConvertible {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([WebDriverJSON])
  case object([String: WebDriverJSON])

  /// Decodes any JSON value; booleans are tried before numbers because JSON keeps them distinct.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([WebDriverJSON].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: WebDriverJSON].self))
    }
  }

  /// Encodes the value as plain JSON.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .number(let value): try container.encode(value)
    case .string(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    }
  }

  /// Parses JSON bytes.
  public static func parse(_ data: Data) throws -> WebDriverJSON {
    try JSONDecoder().decode(WebDriverJSON.self, from: data)
  }

  /// The value serialised as compact JSON with sorted keys.
  public func serialized() throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(self)
  }

  /// Compact JSON text, for messages.
  public var description: String {
    guard let data = try? serialized() else { return "<unencodable>" }
    return String(decoding: data, as: UTF8.self)
  }

  /// The string, if this is a string.
  public var string: String? {
    if case .string(let value) = self { return value }
    return nil
  }

  /// The number, if this is a number.
  public var double: Double? {
    if case .number(let value) = self { return value }
    return nil
  }

  /// The number as an integer, if this is an integral number in `Int` range.
  public var int: Int? {
    guard case .number(let value) = self, value.rounded() == value, abs(value) < 9.0e15 else { return nil }
    return Int(value)
  }

  /// The boolean, if this is a boolean.
  public var bool: Bool? {
    if case .bool(let value) = self { return value }
    return nil
  }

  /// The elements, if this is an array.
  public var array: [WebDriverJSON]? {
    if case .array(let value) = self { return value }
    return nil
  }

  /// The members, if this is an object.
  public var object: [String: WebDriverJSON]? {
    if case .object(let value) = self { return value }
    return nil
  }

  /// True for `null`.
  public var isNull: Bool { self == .null }

  /// The member named `key` of an object; nil for missing members and non-objects.
  public subscript(key: String) -> WebDriverJSON? {
    object?[key]
  }

  /// The element at `index` of an array; nil when out of range or not an array.
  public subscript(index: Int) -> WebDriverJSON? {
    guard let items = array, items.indices.contains(index) else { return nil }
    return items[index]
  }
}

extension WebDriverJSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
  ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
  ExpressibleByDictionaryLiteral
{
  /// `null`.
  public init(nilLiteral: ()) { self = .null }
  /// A boolean.
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  /// A number from an integer literal.
  public init(integerLiteral value: Int) { self = .number(Double(value)) }
  /// A number.
  public init(floatLiteral value: Double) { self = .number(value) }
  /// A string.
  public init(stringLiteral value: String) { self = .string(value) }
  /// An array.
  public init(arrayLiteral elements: WebDriverJSON...) { self = .array(elements) }
  /// An object; a repeated key keeps its last value.
  public init(dictionaryLiteral elements: (String, WebDriverJSON)...) {
    self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
  }
}
