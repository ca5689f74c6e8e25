/// A template's node tree laid out flat for rendering: operations with integer operands into shared
/// tables. Walking a tree copied each node's arrays (a retain and a release per node visited, on data
/// every thread shares); walking these operations copies nothing reference-counted. A class, so that
/// handing a template to a partial call is one retain.
///
/// A program bound to a schema also numbers each name by the schema's fields when it is laid out,
/// so rows of that schema are read by number; the names stay, for rendering any other value.
///
/// Operations and text live in memory the program allocates and frees itself: reading an array that
/// every thread shares retains it, and that atomic count is the costliest part of a render.
// @unchecked Sendable: the buffers are written once in `init`, only read afterwards, and freed in
// `deinit` when nothing can read them any more.
final class Program: @unchecked Sendable {
  /// One step. Operations with content (`section`, `inverted`, `parent`, `block`) are followed by
  /// that content, and the walk resumes at `end`.
  enum Op: Sendable {
    /// `bytes[start..<end]`, with partial indentation before `lineStarts[lines]`.
    case text(start: Int, end: Int, lines: Range<Int>)
    /// A line start just before a tag (emits the current indentation).
    case indent
    /// A name (`keys[name]`, empty for `.`) written escaped or raw. `field` is its number in the
    /// program's schema, or -1.
    case variable(name: Range<Int>, escaped: Bool, field: Int)
    /// `.` inside a section over `field` of a bound program: the element that section is at.
    case element(field: Int, escaped: Bool)
    /// Its content once per list element, or once for another truthy value.
    case section(name: Range<Int>, end: Int, field: Int)
    /// Its content when the value is missing or falsey.
    case inverted(name: Range<Int>, end: Int, field: Int)
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

  let ops: UnsafeBufferPointer<Op>
  /// All static text, back to back.
  let bytes: UnsafeBufferPointer<UInt8>
  /// Offsets into `bytes` where partial indentation goes.
  let lineStarts: [Int]
  /// Dotted name components, back to back.
  let keys: [String]
  let partials: [Partial]
  let parents: [Parent]
  let blocks: [Block]
  /// The schema names were bound to, if any.
  let schema: MustacheSchema?

  /// Lays out `nodes`; with a schema, a name that is not one of its fields throws, placed in `source`;
  /// with a vocabulary (and no schema), a name that is not one of its names throws likewise.
  init(
    _ nodes: [Node], schema: MustacheSchema? = nil, vocabulary: MustacheSchema? = nil, file: String = "",
    source: [UInt8] = []
  ) throws(MustacheError) {
    var layout = Layout(schema: schema, vocabulary: vocabulary, file: file, source: source)
    try layout.append(nodes)
    self.schema = schema
    ops = Program.copy(layout.ops)
    bytes = Program.copy(layout.bytes)
    lineStarts = layout.lineStarts
    keys = layout.keys
    partials = layout.partials
    parents = layout.parents
    blocks = layout.blocks
  }

  deinit {
    // Both were allocated by `copy` (never empty allocations, so base addresses exist), and hold
    // trivial values.
    ops.baseAddress.map { UnsafeMutablePointer(mutating: $0).deallocate() }
    bytes.baseAddress.map { UnsafeMutablePointer(mutating: $0).deallocate() }
  }
}

extension Program {
  /// `array` in new memory (operations and bytes are trivial values: nothing to release later).
  private static func copy<T>(_ array: [T]) -> UnsafeBufferPointer<T> {
    let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: max(1, array.count))
    _ = buffer.initialize(from: array)
    return UnsafeBufferPointer(rebasing: buffer[0..<array.count])
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
  let schema: MustacheSchema?
  /// The names an unbound template may read (checked here, looked up by name when rendering).
  let vocabulary: MustacheSchema?
  let file: String
  let source: [UInt8]
  /// Fields of the bound sections enclosing the current node, innermost last (what `.` means).
  var sections: [Int] = []

  init(schema: MustacheSchema?, vocabulary: MustacheSchema?, file: String, source: [UInt8]) {
    self.schema = schema
    self.vocabulary = vocabulary
    self.file = file
    self.source = source
  }

  mutating func append(_ nodes: [Node]) throws(MustacheError) {
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
        if schema != nil && path.components.isEmpty {
          guard let field = sections.last else {
            throw error("'.' outside a section names no field of \(schema?.name ?? "")", at: path.offset)
          }
          ops.append(.element(field: field, escaped: escaped))
        } else {
          ops.append(.variable(name: name(path), escaped: escaped, field: try field(path)))
        }
      case .section(let path, let inner):
        let name = name(path)
        let field = try field(path)
        let at = opening()
        if field >= 0 { sections.append(field) }
        try append(inner)
        if field >= 0 { sections.removeLast() }
        ops[at] = .section(name: name, end: ops.count, field: field)
      case .inverted(let path, let inner):
        let name = name(path)
        let field = try field(path)
        let at = opening()
        try append(inner)
        ops[at] = .inverted(name: name, end: ops.count, field: field)
      case .partial(let partial):
        partials.append(Program.Partial(name: partial.name, indent: partial.indent))
        ops.append(.partial(partials.count - 1))
      case .parent(let parent):
        let at = opening()
        var arguments: [String: Program.Argument] = [:]
        // Sorted so equal sources lay out equal programs.
        for (name, override) in parent.overrides.sorted(by: { $0.key < $1.key }) {
          let start = ops.count
          try append(override.nodes)
          arguments[name] = Program.Argument(
            start: start, end: ops.count, leadingLineStart: override.leadingLineStart)
        }
        parents.append(Program.Parent(name: parent.name, indent: parent.indent, arguments: arguments))
        ops[at] = .parent(parents.count - 1, end: ops.count)
      case .block(let block):
        let at = opening()
        blocks.append(Program.Block(name: block.name, indent: block.indent, standalone: block.standalone))
        let index = blocks.count - 1
        try append(block.content)
        ops[at] = .block(index, end: ops.count)
      }
    }
  }

  /// A placeholder for an operation whose end is known once its content is laid out.
  private mutating func opening() -> Int {
    ops.append(.indent)
    return ops.count - 1
  }

  /// The schema's number for `path`; -1 without a schema. A name the schema (or, without one, the
  /// vocabulary) lacks throws; `.` is always allowed in an unbound template.
  private func field(_ path: Path) throws(MustacheError) -> Int {
    guard let schema else {
      if let vocabulary, !path.components.isEmpty, vocabulary.field(named: path.name) == nil {
        throw error("'\(path.name)' is not a name of \(vocabulary.name)", at: path.offset)
      }
      return -1
    }
    guard let field = schema.field(named: path.name) else {
      throw error("'\(path.name)' is not a field of \(schema.name)", at: path.offset)
    }
    return field
  }

  private func error(_ message: String, at offset: Int) -> MustacheError {
    let (line, column) = sourceLocation(of: offset, in: source)
    return MustacheError(.unknownName, file: file, line: line, column: column, message: message)
  }

  private mutating func name(_ path: Path) -> Range<Int> {
    let start = keys.count
    keys += path.components
    return start..<keys.count
  }
}
