/// A template problem found while loading or rendering, with its place in the source.
public struct MustacheError: Error, Sendable, CustomStringConvertible {
  /// What went wrong, for callers and tests that act on the kind rather than on the message.
  public enum Kind: Sendable, Equatable {
    /// The source is not valid Mustache (unclosed tag, unbalanced section, bad delimiters).
    case syntax
    /// A bound or checked template reads a name its view model does not have.
    case unknownName
    /// A template, partial or parent named somewhere does not exist.
    case missingTemplate
    /// A bound template calls one that is not bound to the same schema.
    case bindingMismatch
    /// A library that checks every template found one with neither a binding nor a vocabulary.
    case unbound
    /// A template folder or file could not be read.
    case unreadable
    /// Rendering stopped at a depth, node or size limit.
    case limitExceeded
  }

  /// What went wrong.
  public var kind: Kind
  /// The template's file path, or its name when it did not come from a file.
  public var file: String
  /// 1-based line; 0 when the error has no place (e.g. an unreadable folder).
  public var line: Int
  /// 1-based column in characters; 0 when the error has no place.
  public var column: Int
  /// What is wrong.
  public var message: String

  /// `file:line:column: message`, the form compilers use.
  public var description: String {
    line > 0 ? "\(file):\(line):\(column): \(message)" : "\(file): \(message)"
  }
}

/// Line and column (both 1-based, column in Unicode scalars) of a byte offset in a UTF-8 source.
func sourceLocation(of offset: Int, in source: [UInt8]) -> (line: Int, column: Int) {
  var line = 1
  var column = 1
  var i = 0
  let end = min(offset, source.count)
  while i < end {
    let b = source[i]
    if b == UInt8(ascii: "\n") {
      line += 1
      column = 1
    } else if b & 0xC0 != 0x80 {
      column += 1
    }
    i += 1
  }
  return (line, column)
}
