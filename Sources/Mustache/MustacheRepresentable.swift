/// A type that view models use to turn themselves into a ``MustacheValue``.
public protocol MustacheRepresentable {
  /// The value templates see.
  var mustacheValue: MustacheValue { get }
}

extension MustacheValue: MustacheRepresentable {
  /// Itself.
  public var mustacheValue: MustacheValue { self }
}

extension String: MustacheRepresentable {
  /// A `.string` (escaped on output).
  public var mustacheValue: MustacheValue { .string(self) }
}

extension Substring: MustacheRepresentable {
  /// A `.string` (escaped on output).
  public var mustacheValue: MustacheValue { .string(String(self)) }
}

extension Int: MustacheRepresentable {
  /// An `.int`.
  public var mustacheValue: MustacheValue { .int(self) }
}

extension Double: MustacheRepresentable {
  /// A `.double`.
  public var mustacheValue: MustacheValue { .double(self) }
}

extension Bool: MustacheRepresentable {
  /// A `.bool`.
  public var mustacheValue: MustacheValue { .bool(self) }
}

extension Array: MustacheRepresentable where Element: MustacheRepresentable {
  /// A `.list` of the elements' values.
  public var mustacheValue: MustacheValue { .list(map(\.mustacheValue)) }
}

extension Optional: MustacheRepresentable where Wrapped: MustacheRepresentable {
  /// The wrapped value's, or `.null`.
  public var mustacheValue: MustacheValue {
    switch self {
    case .some(let wrapped): return wrapped.mustacheValue
    case .none: return .null
    }
  }
}

extension Dictionary: MustacheRepresentable where Key == String, Value: MustacheRepresentable {
  /// An `.object` of the values' values.
  public var mustacheValue: MustacheValue { .object(mapValues(\.mustacheValue)) }
}
