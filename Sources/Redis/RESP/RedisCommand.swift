/// One argument of a command: binary-safe bytes. Strings, integers and byte arrays convert to it.
public struct RedisArgument: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
  /// The bytes sent as one bulk string.
  public var bytes: [UInt8]

  /// The bytes as they are.
  public init(bytes: [UInt8]) { self.bytes = bytes }
  /// The string's UTF-8 bytes.
  public init(_ string: String) { self.bytes = Array(string.utf8) }
  /// The string's UTF-8 bytes.
  public init(_ string: Substring) { self.bytes = Array(string.utf8) }
  /// The integer in decimal.
  public init(_ value: some BinaryInteger) { self.bytes = Array(String(value).utf8) }
  /// A literal string.
  public init(stringLiteral value: String) { self.init(value) }
  /// A literal integer.
  public init(integerLiteral value: Int) { self.init(value) }

  /// The bytes as they are.
  public static func bytes(_ bytes: [UInt8]) -> RedisArgument { RedisArgument(bytes: bytes) }
}

/// A command and its arguments, encoded as a RESP array of bulk strings (binary safe).
public struct RedisCommand: Sendable, Hashable, CustomStringConvertible {
  /// The command name first, then its arguments.
  public var arguments: [RedisArgument]

  /// `RedisCommand("SET", key, .bytes(value), "PX", 500)`.
  public init(_ name: String, _ arguments: RedisArgument...) {
    self.arguments = [RedisArgument(name)] + arguments
  }

  /// A command from its complete argument list, name first.
  public init(arguments: [RedisArgument]) { self.arguments = arguments }

  /// The command's name, upper-cased, for logs and errors (arguments are never shown: they may be secret).
  public var description: String {
    guard let first = arguments.first else { return "(empty command)" }
    return String(decoding: first.bytes, as: UTF8.self).uppercased()
  }

  /// Appends the RESP encoding to `out`.
  public func encode(into out: inout [UInt8]) {
    out.append(UInt8(ascii: "*"))
    Self.appendDecimal(arguments.count, to: &out)
    for argument in arguments {
      out.append(UInt8(ascii: "$"))
      Self.appendDecimal(argument.bytes.count, to: &out)
      out.append(contentsOf: argument.bytes)
      out.append(13)
      out.append(10)
    }
  }

  /// Appends `value` in decimal, then CRLF.
  private static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
    out.append(contentsOf: String(value).utf8)
    out.append(13)
    out.append(10)
  }
}
