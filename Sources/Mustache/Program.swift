/// A template's node tree laid out flat for rendering: operations with integer operands into shared
/// tables. Walking a tree copied each node's arrays (a retain and a release per node visited, on data
/// every thread shares); walking these operations copies nothing reference-counted. A class, so that
/// handing a template to a partial call is one retain.
final class Program: Sendable {
  /// One step. Operations with content (`section`, `inverted`, `parent`, `block`) are followed by
  /// that content, and the walk resumes at `end`.
  enum Op: Sendable {
    /// `bytes[start..<end]`, with partial indentation before `lineStarts[lines]`.
    case text(start: Int, end: Int, lines: Range<Int>)
    /// A line start just before a tag (emits the current indentation).
    case indent
    /// A name (`keys[name]`, empty for `.`) written escaped or raw.
    case variable(name: Range<Int>, escaped: Bool)
    /// Its content once per list element, or once for another truthy value.
    case section(name: Range<Int>, end: Int)
    /// Its content when the value is missing or falsey.
    case inverted(name: Range<Int>, end: Int)
    /// `partials[index]`.
    case partial(Int)
    /// `parents[index]`; its block arguments follow up to `end`.
    case parent(Int, end: Int)
    /// `blocks[index]`; its default content follows up to `end`.
    case block(Int, end: Int)
  }

  /// A partial include; `indent` is nil for an inline tag (indentation resets).
  struct Partial: Sendable {
    let name: String
    let indent: [UInt8]?
  }

  /// A block argument of a parent call: operations of the program that made the call.
  struct Argument: Sendable {
    let start: Int
    let end: Int
    /// Whether the content starts at the beginning of a line (gets indentation when expanded standalone).
    let leadingLineStart: Bool
  }

  /// A parent call with its block arguments by name.
  struct Parent: Sendable {
    let name: String
    let indent: [UInt8]?
    let arguments: [String: Argument]
  }

  /// A block outside a parent call: a parameter whose default content follows its operation.
  struct Block: Sendable {
    let name: String
    /// Indentation of the block's lines at this site, added to an argument's lines.
    let indent: [UInt8]
    /// Whether the opening tag stood alone on its line.
    let standalone: Bool
  }

  let ops: [Op]
  /// All static text, back to back.
  let bytes: [UInt8]
  /// Offsets into `bytes` where partial indentation goes.
  let lineStarts: [Int]
  /// Dotted name components, back to back.
  let keys: [String]
  let partials: [Partial]
  let parents: [Parent]
  let blocks: [Block]

  init(_ nodes: [Node]) {
    var layout = Layout()
    layout.append(nodes)
    ops = layout.ops
    bytes = layout.bytes
    lineStarts = layout.lineStarts
    keys = layout.keys
    partials = layout.partials
    parents = layout.parents
    blocks = layout.blocks
  }
}

/// Lays a node tree out as a `Program`'s tables.
private struct Layout {
  typealias Op = Program.Op
  var ops: [Op] = []
  var bytes: [UInt8] = []
  var lineStarts: [Int] = []
  var keys: [String] = []
  var partials: [Program.Partial] = []
  var parents: [Program.Parent] = []
  var blocks: [Program.Block] = []

  mutating func append(_ nodes: [Node]) {
    for node in nodes {
      switch node {
      case .text(let text, let starts):
        let base = bytes.count
        bytes += text
        let first = lineStarts.count
        lineStarts += starts.map { base + $0 }
        ops.append(.text(start: base, end: bytes.count, lines: first..<lineStarts.count))
      case .indent:
        ops.append(.indent)
      case .variable(let path, let escaped):
        ops.append(.variable(name: name(path), escaped: escaped))
      case .section(let path, let inner):
        let name = name(path)
        let at = opening()
        append(inner)
        ops[at] = .section(name: name, end: ops.count)
      case .inverted(let path, let inner):
        let name = name(path)
        let at = opening()
        append(inner)
        ops[at] = .inverted(name: name, end: ops.count)
      case .partial(let partial):
        partials.append(Program.Partial(name: partial.name, indent: partial.indent))
        ops.append(.partial(partials.count - 1))
      case .parent(let parent):
        let at = opening()
        var arguments: [String: Program.Argument] = [:]
        // Sorted so equal sources lay out equal programs.
        for (name, override) in parent.overrides.sorted(by: { $0.key < $1.key }) {
          let start = ops.count
          append(override.nodes)
          arguments[name] = Program.Argument(
            start: start, end: ops.count, leadingLineStart: override.leadingLineStart)
        }
        parents.append(Program.Parent(name: parent.name, indent: parent.indent, arguments: arguments))
        ops[at] = .parent(parents.count - 1, end: ops.count)
      case .block(let block):
        let at = opening()
        blocks.append(Program.Block(name: block.name, indent: block.indent, standalone: block.standalone))
        let index = blocks.count - 1
        append(block.content)
        ops[at] = .block(index, end: ops.count)
      }
    }
  }

  /// A placeholder for an operation whose end is known once its content is laid out.
  private mutating func opening() -> Int {
    ops.append(.indent)
    return ops.count - 1
  }

  private mutating func name(_ path: Path) -> Range<Int> {
    let start = keys.count
    keys += path.components
    return start..<keys.count
  }
}
