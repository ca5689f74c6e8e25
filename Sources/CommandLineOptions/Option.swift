/// One flag of an `OptionTable`: its name, variable, value name, help line, and what it sets.
public struct Option<Settings>: Sendable {
  /// The flag, with its dashes: `--port`.
  public let flag: String
  /// The environment variable read when the flag is not given, if any.
  public let env: String?
  /// The value's name in the help text (`N`, `URL`); nil for a switch that takes no value.
  public let valueName: String?
  /// The help line, ending with the default in parentheses.
  public let help: String
  /// Sets the field from the value's text, or throws `OptionError` saying what was expected.
  public let apply: @Sendable (inout Settings, String) throws -> Void

  /// An option; see the properties.
  public init(
    _ flag: String, env: String? = nil, value valueName: String? = nil, help: String,
    apply: @escaping @Sendable (inout Settings, String) throws -> Void
  ) {
    self.flag = flag
    self.env = env
    self.valueName = valueName
    self.help = help
    self.apply = apply
  }
}

/// Readers for option values; each throws an `OptionError` saying what it expected.
public enum OptionValue {
  /// A whole number within `range`.
  public static func int(_ value: String, in range: ClosedRange<Int>) throws(OptionError) -> Int {
    guard let n = Int(value), range.contains(n) else {
      throw OptionError("expected a whole number in \(range.lowerBound)...\(range.upperBound), got \(value)")
    }
    return n
  }

  /// A number within `range` (a share, a number of seconds).
  public static func double(_ value: String, in range: ClosedRange<Double>) throws(OptionError) -> Double {
    guard let n = Double(value), n.isFinite, range.contains(n) else {
      throw OptionError("expected a number in \(range.lowerBound)...\(range.upperBound), got \(value)")
    }
    return n
  }

  /// true/false, 1/0, yes/no or on/off.
  public static func bool(_ value: String) throws(OptionError) -> Bool {
    switch value.lowercased() {
    case "1", "true", "yes", "on": return true
    case "0", "false", "no", "off": return false
    default: throw OptionError("expected true or false, got \(value)")
    }
  }

  /// An http or https URL, without a trailing slash.
  public static func url(_ value: String) throws(OptionError) -> String {
    guard value.hasPrefix("http://") || value.hasPrefix("https://") else {
      throw OptionError("expected an http or https URL, got \(value)")
    }
    return value.hasSuffix("/") ? String(value.dropLast()) : value
  }
}

extension Option {
  /// A whole-number option within `range` that sets `field`.
  ///
  /// ```swift
  /// Option.int("--port", env: "PORT", help: "listen port (8080)", in: 0...65535, \.port)
  /// ```
  public static func int(
    _ flag: String, env: String? = nil, value valueName: String = "N", help: String,
    in range: ClosedRange<Int>,
    _ field: any WritableKeyPath<Settings, Int> & Sendable
  ) -> Option {
    Option(flag, env: env, value: valueName, help: help) {
      $0[keyPath: field] = try OptionValue.int($1, in: range)
    }
  }

  /// A number option within `range` (a share, seconds) that sets `field`.
  public static func double(
    _ flag: String, env: String? = nil, value valueName: String = "R", help: String,
    in range: ClosedRange<Double>,
    _ field: any WritableKeyPath<Settings, Double> & Sendable
  ) -> Option {
    Option(flag, env: env, value: valueName, help: help) {
      $0[keyPath: field] = try OptionValue.double($1, in: range)
    }
  }

  /// A true/false option that sets `field`; `value` nil lists it as a switch.
  public static func bool(
    _ flag: String, env: String? = nil, value valueName: String? = "BOOL", help: String,
    _ field: any WritableKeyPath<Settings, Bool> & Sendable
  ) -> Option {
    Option(flag, env: env, value: valueName, help: help) { $0[keyPath: field] = try OptionValue.bool($1) }
  }

  /// An http or https URL option (stored without a trailing slash) that sets `field`.
  public static func url(
    _ flag: String, env: String? = nil, help: String,
    _ field: any WritableKeyPath<Settings, String> & Sendable
  ) -> Option {
    Option(flag, env: env, value: "URL", help: help) { $0[keyPath: field] = try OptionValue.url($1) }
  }

  /// A text option taken as given (a path, an address) that sets `field`.
  public static func text(
    _ flag: String, env: String? = nil, value valueName: String, help: String,
    _ field: any WritableKeyPath<Settings, String> & Sendable
  ) -> Option {
    Option(flag, env: env, value: valueName, help: help) { $0[keyPath: field] = $1 }
  }

  /// A text option taken as given that sets an optional `field` (nil when not given).
  public static func text(
    _ flag: String, env: String? = nil, value valueName: String, help: String,
    _ field: any WritableKeyPath<Settings, String?> & Sendable
  ) -> Option {
    Option(flag, env: env, value: valueName, help: help) { $0[keyPath: field] = $1 }
  }
}
