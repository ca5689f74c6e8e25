/// A template's node tree laid out flat for rendering: operations with integer operands into shared
/// tables. Walking a tree copied each node's arrays (a retain and a release per node visited, on data
/// every thread shares); walking these operations copies nothing reference-counted.
///
/// A program bound to a schema also numbers each name by the schema's fields when it is laid out,
/// so rows of that schema are read by number; the names stay, for rendering any other value.
///
/// Operations and text live in memory the program allocates and frees itself: reading an array that
/// every thread shares retains it, and that atomic count is the costliest part of a render.
/// Operations are 16 bytes, with 32-bit operands (a template over 2 GB fails to load). A bound program
/// is also laid out as `steps` for the walk that renders rows: dispatching operations is most of a
/// walk's own time, and a step is one text run and one tag (`partials/card`: 51 steps for 83
/// operations).
///
/// Partial and parent calls are resolved to programs once, when a library loads (`link`), so a call
/// looks up no name and retains nothing.
// @unchecked Sendable: the buffers are written once in `init`, and `links`/`linker` once by the library
// that made the program, before the program is shared; afterwards everything is only read, and the
// buffers are freed in `deinit` when nothing can read them any more.
final class Program: @unchecked Sendable {
  /// One step. Operations with content (`section`, `inverted`, `parent`, `block`) are followed by
  /// that content, and the walk resumes at `end`. Names are `names[name]`.
  enum Op: Sendable {
    /// `bytes[start..<end]`, with partial indentation before the line starts `lines[lines]` (-1: none).
    case text(start: Int32, end: Int32, lines: Int32)
    /// A line start just before a tag (emits the current indentation).
    case indent
    /// A name (`keys[names[name]]`, empty for `.`) written escaped or raw. `field` is its number in
    /// the program's schema, or -1.
    case variable(name: Int32, field: Int32, escaped: Bool)
    /// `.` inside a section over `field` of a bound program: the element that section is at.
    case element(field: Int32, escaped: Bool)
    /// Its content once per list element, or once for another truthy value.
    case section(name: Int32, end: Int32, field: Int32)
    /// Its content when the value is missing or falsey.
    case inverted(name: Int32, end: Int32, field: Int32)
    /// `partials[index]`, linked as `links[index]`.
    case partial(Int32)
    /// `parents[index]`, linked as `links[partials.count + index]`; its block arguments follow up to
    /// `end`.
    case parent(Int32, end: Int32)
    /// `blocks[index]`; its default content follows up to `end`.
    case block(Int32, end: Int32)
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

  /// One step of a bound program: a text run, then one tag (or none). Sections and inverted
  /// sections are followed by their content's steps, and the walk resumes at `next`.
  struct Step: Sendable {
    enum Action: UInt8, Sendable {
      /// Only the text.
      case text
      /// `field`, escaped or raw.
      case field, rawField
      /// The element of the innermost section (over `field`), escaped or raw.
      case element, rawElement
      /// Content once per element of `field`; `flatSection` when the content reads no element (one
      /// pass then renders in line).
      case section, flatSection
      /// Content when `field` renders no pass.
      case inverted
      /// `partials[Int(next)]`, linked as `links[Int(next)]`.
      case partial
    }

    /// `bytes[textStart..<textEnd]`, written before the action.
    var textStart: Int32
    var textEnd: Int32
    /// Where the walk resumes after a section's content; the partial's index for `partial`.
    var next: Int32
    var field: UInt16
    var action: Action
  }

  let ops: UnsafeBufferPointer<Op>
  /// All static text, back to back.
  let bytes: UnsafeBufferPointer<UInt8>
  /// Offsets into `bytes` where partial indentation goes.
  let lineStarts: [Int]
  /// The line starts of each text operation that has some: ranges of `lineStarts`.
  let lines: [Range<Int>]
  /// Dotted name components, back to back.
  let keys: [String]
  /// Each name's components: ranges of `keys`.
  let names: [Range<Int>]
  let partials: [Partial]
  let parents: [Parent]
  let blocks: [Block]
  /// The bound walk's layout (see `Step`): nil unbound, or when the program calls parents or has
  /// blocks, or reads a field numbered past 65,535 (the walk over `ops` then reads fields by number).
  let steps: UnsafeBufferPointer<Step>?
  /// The schema names were bound to, if any.
  let schema: MustacheSchema?
  /// The schema's identity, compared with the rows' once per section over rows.
  let schemaID: ObjectIdentifier?
  /// Whether some partial call has indentation of its own (standalone and indented).
  let indentsPartials: Bool
  /// The programs partial and parent calls name, in the library that linked this program (see
  /// `link`); empty until then.
  private(set) var links = UnsafeMutableBufferPointer<Unmanaged<Program>?>(start: nil, count: 0)
  /// The identity of `linker`: a render with that library's programs follows `links`.
  private(set) var linkerID: ObjectIdentifier?
  /// Kept so that `linkerID` names no other object while this program lives.
  private var linker: AnyObject?

  /// Lays out `nodes`; with a schema, a name that is not one of its fields throws, placed in `source`;
  /// with a vocabulary (and no schema), a name that is not one of its names throws likewise.
  init(
    _ nodes: [Node], schema: MustacheSchema? = nil, vocabulary: MustacheSchema? = nil, file: String = "",
    source: [UInt8] = []
  ) throws(MustacheError) {
    var layout = Layout(schema: schema, vocabulary: vocabulary, file: file, source: source)
    try layout.append(nodes)
    try layout.checkSize()
    self.schema = schema
    schemaID = schema.map(ObjectIdentifier.init)
    ops = Program.copy(layout.ops)
    var lowering = Lowering(ops: layout.ops)
    if schema != nil, let steps = lowering.steps() {
      self.steps = Program.copy(steps)
    } else {
      steps = nil
    }
    bytes = Program.copy(layout.bytes)
    lineStarts = layout.lineStarts
    lines = layout.lines
    keys = layout.keys
    names = layout.names
    partials = layout.partials
    parents = layout.parents
    blocks = layout.blocks
    indentsPartials = layout.partials.contains { $0.indent?.isEmpty == false }
  }

  /// Resolves this program's partial and parent calls to `programs`, the library `linker` holds.
  /// Called once, by that library while it loads, before the program is shared. The links are
  /// unowned: the library keeps every program alive, and a render follows them only while it holds
  /// that library (`linkerID` matches its own).
  func link(_ programs: [String: Program], by linker: AnyObject) {
    let targets = UnsafeMutableBufferPointer<Unmanaged<Program>?>.allocate(
      capacity: max(1, partials.count + parents.count))
    for (index, partial) in partials.enumerated() {
      targets.initializeElement(at: index, to: programs[partial.name].map(Unmanaged.passUnretained))
    }
    for (index, parent) in parents.enumerated() {
      targets.initializeElement(
        at: partials.count + index, to: programs[parent.name].map(Unmanaged.passUnretained))
    }
    links = UnsafeMutableBufferPointer(rebasing: targets[0..<(partials.count + parents.count)])
    linkerID = ObjectIdentifier(linker)
    self.linker = linker
  }

  deinit {
    // All were allocated by `copy` or `link` (never empty allocations, so base addresses
    // exist when set), and hold trivial values.
    ops.baseAddress.map { UnsafeMutablePointer(mutating: $0).deallocate() }
    steps?.baseAddress.map { UnsafeMutablePointer(mutating: $0).deallocate() }
    bytes.baseAddress.map { UnsafeMutablePointer(mutating: $0).deallocate() }
    links.baseAddress?.deallocate()
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
  var lines: [Range<Int>] = []
  var keys: [String] = []
  var names: [Range<Int>] = []
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
        var index = -1
        if !starts.isEmpty {
          let first = lineStarts.count
          lineStarts += starts.map { base + $0 }
          lines.append(first..<lineStarts.count)
          index = lines.count - 1
        }
        ops.append(
          .text(start: Layout.int32(base), end: Layout.int32(bytes.count), lines: Layout.int32(index)))
      case .indent:
        ops.append(.indent)
      case .variable(let path, let escaped):
        if schema != nil && path.components.isEmpty {
          guard let field = sections.last else {
            throw error("'.' outside a section names no field of \(schema?.name ?? "")", at: path.offset)
          }
          ops.append(.element(field: Layout.int32(field), escaped: escaped))
        } else {
          ops.append(.variable(name: name(path), field: Layout.int32(try field(path)), escaped: escaped))
        }
      case .section(let path, let inner):
        let name = name(path)
        let field = try field(path)
        let at = opening()
        if field >= 0 { sections.append(field) }
        try append(inner)
        if field >= 0 { sections.removeLast() }
        ops[at] = .section(name: name, end: Layout.int32(ops.count), field: Layout.int32(field))
      case .inverted(let path, let inner):
        let name = name(path)
        let field = try field(path)
        let at = opening()
        try append(inner)
        ops[at] = .inverted(name: name, end: Layout.int32(ops.count), field: Layout.int32(field))
      case .partial(let partial):
        partials.append(Program.Partial(name: partial.name, indent: partial.indent))
        ops.append(.partial(Layout.int32(partials.count - 1)))
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
        ops[at] = .parent(Layout.int32(parents.count - 1), end: Layout.int32(ops.count))
      case .block(let block):
        let at = opening()
        blocks.append(Program.Block(name: block.name, indent: block.indent, standalone: block.standalone))
        let index = blocks.count - 1
        try append(block.content)
        ops[at] = .block(Layout.int32(index), end: Layout.int32(ops.count))
      }
    }
  }

  /// Operands are 32-bit: a template whose tables outgrow them does not load (the operands laid out
  /// meanwhile were cut, and are never used).
  func checkSize() throws(MustacheError) {
    let largest =
      [ops.count, bytes.count, lines.count, names.count, partials.count + parents.count, blocks.count]
      .max() ?? 0
    if largest > Int(Int32.max) || (schema?.names.count ?? 0) > Int(Int32.max) {
      throw MustacheError(
        kind: .limitExceeded, file: file, line: 0, column: 0,
        message: "the template is too large (over 2 GB of text or 2^31 tags)")
    }
  }

  /// `value` as an operand (see `checkSize`).
  private static func int32(_ value: Int) -> Int32 { Int32(truncatingIfNeeded: value) }

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
    return MustacheError(kind: .unknownName, file: file, line: line, column: column, message: message)
  }

  /// `path`'s components added to `keys`, and its number in `names`.
  private mutating func name(_ path: Path) -> Int32 {
    let start = keys.count
    keys += path.components
    names.append(start..<keys.count)
    return Layout.int32(names.count - 1)
  }
}

/// Lays a bound program's operations out as steps: each text run joins the tag after it.
private struct Lowering {
  typealias Step = Program.Step
  let ops: [Program.Op]
  var laidOut: [Step] = []
  /// Text not yet written by a step: `start..<end` of the program's bytes.
  var start: Int32 = 0
  var end: Int32 = 0

  init(ops: [Program.Op]) { self.ops = ops }

  /// The steps, or nil when some operation has none (parents, blocks, fields past 65,535).
  mutating func steps() -> [Step]? {
    guard lower(0, ops.count) != nil else { return nil }
    flush()
    return laidOut
  }

  /// Lowers `ops[from..<to]`: whether one of them reads the element of the section they are the
  /// content of (nil when one cannot be lowered).
  private mutating func lower(_ from: Int, _ to: Int) -> Bool? {
    var readsElement = false
    var k = from
    while k < to {
      switch ops[k] {
      case .text(let start, let end, _):
        if self.end == self.start {
          self.start = start
        } else if self.end != start {
          flush()
          self.start = start
        }
        self.end = end
      case .indent:
        // A bound walk runs without indentation.
        break
      case .variable(_, let field, let escaped):
        guard let field = UInt16(exactly: field) else { return nil }
        emit(escaped ? .field : .rawField, field: field)
      case .element(let field, let escaped):
        guard let field = UInt16(exactly: field) else { return nil }
        readsElement = true
        emit(escaped ? .element : .rawElement, field: field)
      case .section(_, let contentEnd, let field):
        guard let field = UInt16(exactly: field) else { return nil }
        let at = emit(.section, field: field)
        guard let inner = lower(k + 1, Int(contentEnd)) else { return nil }
        flush()
        laidOut[at].action = inner ? .section : .flatSection
        laidOut[at].next = Int32(truncatingIfNeeded: laidOut.count)
        k = Int(contentEnd)
        continue
      case .inverted(_, let contentEnd, let field):
        guard let field = UInt16(exactly: field) else { return nil }
        let at = emit(.inverted, field: field)
        // `.` inside an inverted section is the enclosing section's element.
        guard let inner = lower(k + 1, Int(contentEnd)) else { return nil }
        readsElement = readsElement || inner
        flush()
        laidOut[at].next = Int32(truncatingIfNeeded: laidOut.count)
        k = Int(contentEnd)
        continue
      case .partial(let index):
        emit(.partial, field: 0, next: index)
      case .parent, .block:
        return nil
      }
      k += 1
    }
    return readsElement
  }

  /// A step with the pending text; its index.
  @discardableResult
  private mutating func emit(_ action: Step.Action, field: UInt16, next: Int32 = 0) -> Int {
    laidOut.append(Step(textStart: start, textEnd: end, next: next, field: field, action: action))
    start = 0
    end = 0
    return laidOut.count - 1
  }

  /// The pending text as a step of its own, if any.
  private mutating func flush() {
    if end != start { emit(.text, field: 0) }
  }
}
