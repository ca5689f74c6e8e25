/// A typed value that templates render: no reflection, no `Any`.
///
/// Truthiness for sections: `null`, `false`, empty lists and empty strings are falsey; everything else
/// (including `0`) is truthy.
public enum MustacheValue: Sendable {
  /// Text, HTML-escaped by `{{name}}` and emitted as is by `{{{name}}}` or `{{& name}}`.
  case string(String)
  /// An integer, written in decimal.
  case int(Int)
  /// A floating-point number; integral values are written without a fraction.
  case double(Double)
  /// A boolean: `false` hides a section, `true` shows it once.
  case bool(Bool)
  /// A list: a section renders once per element.
  case list([MustacheValue])
  /// A named set of values, searched by name lookups.
  case object([String: MustacheValue])
  /// A view model that answers name lookups itself, so nothing is built before rendering and only
  /// the names a template reads are computed.
  case dynamic(any MustacheObject)
  /// The rows of a list, read by templates bound to their schema (see `MustacheRows`): a section
  /// renders once per row.
  case rows(any MustacheRows)
  /// No value: renders empty and hides sections.
  case null
  /// A pre-escaped HTML fragment, always emitted raw.
  case html(String)

  /// The value named `key` when this is an object that has one.
  func member(_ key: String) -> MustacheValue? {
    switch self {
    case .object(let members): return members[key]
    case .dynamic(let object): return object.value(for: key)
    default: return nil
    }
  }

  /// The value at the dotted path `keys[path]` below this one.
  func member(_ keys: [String], _ path: Range<Int>) -> MustacheValue? {
    guard let first = path.first, let next = member(keys[first]) else { return nil }
    return first + 1 == path.upperBound ? next : next.member(keys, path.dropFirst())
  }

  /// Whether a section over this value renders (see the type's documentation).
  @inlinable public var isTruthy: Bool {
    switch self {
    case .null, .bool(false): return false
    case .list(let items): return !items.isEmpty
    case .rows(let rows): return rows.count > 0
    case .string(let s), .html(let s): return !s.isEmpty
    default: return true
    }
  }
}

/// A view model that templates read by name, without building a dictionary first (see
/// `MustacheValue.dynamic`). Like an object, it is truthy, renders empty on its own, and a name it
/// does not answer is looked up further down the context stack.
///
/// Class-bound on purpose: a class existential is one reference, so `MustacheValue` stays loadable and
/// copying it is a retain; a struct existential would make every value copy go through witness calls.
public protocol MustacheObject: AnyObject, Sendable {
  /// The value called `key` (one component of a dotted name), or nil when this object has none.
  func value(for key: String) -> MustacheValue?
}

extension MustacheValue: ExpressibleByStringLiteral {
  /// A `.string` from a literal.
  public init(stringLiteral value: String) { self = .string(value) }
}

extension MustacheValue: ExpressibleByIntegerLiteral {
  /// An `.int` from a literal.
  public init(integerLiteral value: Int) { self = .int(value) }
}

extension MustacheValue: ExpressibleByFloatLiteral {
  /// A `.double` from a literal.
  public init(floatLiteral value: Double) { self = .double(value) }
}

extension MustacheValue: ExpressibleByBooleanLiteral {
  /// A `.bool` from a literal.
  public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension MustacheValue: ExpressibleByNilLiteral {
  /// `.null` from `nil`.
  public init(nilLiteral: ()) { self = .null }
}

extension MustacheValue: ExpressibleByArrayLiteral {
  /// A `.list` from a literal.
  public init(arrayLiteral elements: MustacheValue...) { self = .list(elements) }
}

extension MustacheValue: ExpressibleByDictionaryLiteral {
  /// An `.object` from a literal; a repeated key keeps the last value.
  public init(dictionaryLiteral elements: (String, MustacheValue)...) {
    self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
  }
}
