/// A name as written in a tag, split once at parse time.
struct Path: Sendable {
  /// Dotted components; empty for the implicit iterator `.`.
  let components: [String]
  /// The name as written.
  let name: String
  /// Byte offset of the tag in the source, for load-time errors about the name.
  let offset: Int

  init(_ name: String, offset: Int) {
    self.name = name
    self.offset = offset
    components =
      name == "." ? [] : name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
  }
}

/// Content passed by a parent call for one block, already outdented at its definition site.
struct Override: Sendable {
  let nodes: [Node]
  /// Whether the content starts at the beginning of a line (gets indentation when expanded standalone).
  let leadingLineStart: Bool
}

/// A partial include.
struct PartialNode: Sendable {
  let name: String
  /// Indentation for a standalone tag; nil resets indentation (inline tag).
  let indent: [UInt8]?
}

/// A parent call (`{{<name}}…{{/name}}`) with its block arguments.
struct ParentNode: Sendable {
  let name: String
  let indent: [UInt8]?
  let overrides: [String: Override]
}

/// A block (`{{$name}}…{{/name}}`) outside a parent call: a parameter with default content.
struct BlockNode: Sendable {
  let name: String
  let content: [Node]
  /// Indentation of the block's lines at this site, added to an override's lines.
  let indent: [UInt8]
  /// Whether the opening tag stood alone on its line.
  let standalone: Bool
}

/// A node of the immutable template tree.
enum Node: Sendable {
  /// Static UTF-8 bytes; `lineStarts` are offsets where partial indentation goes.
  case text([UInt8], lineStarts: [Int])
  /// A line start just before a tag (emits the current indentation).
  case indent
  case variable(Path, escaped: Bool)
  case section(Path, [Node])
  case inverted(Path, [Node])
  indirect case partial(PartialNode)
  indirect case parent(ParentNode)
  indirect case block(BlockNode)
}
