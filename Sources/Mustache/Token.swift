/// One lexical piece of a template, refined by the parser's passes.
struct Token {
  enum Kind: UInt8 {
    case text, variable, rawVariable, section, inverted, close, comment, partial, parent, block, delimiters
  }

  var kind: Kind
  /// Byte range of the whole token in the source.
  var start: Int
  var end: Int
  /// Tag content (trimmed), empty for text, comments and delimiter changes.
  var name = ""
  /// Text range after standalone trimming, then the bytes themselves.
  var textStart = 0
  var textEnd = 0
  var bytes: [UInt8] = []
  /// Whether the text's first byte begins a source line.
  var atLineStart = false
  /// Whitespace between the line start and the tag; nil when anything else precedes it.
  var wsBefore: [UInt8]?
  var standalone = false
  /// For standalone block openers: whitespace at the start of the first content line.
  var intrinsic: [UInt8] = []
  /// Index of the matching opener or closer.
  var partner = -1
  /// A block (or its closer) directly inside a parent call: an argument, not a parameter.
  var isOverride = false

  var isTag: Bool { kind != .text }
}
