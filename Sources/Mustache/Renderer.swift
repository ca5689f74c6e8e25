/// Limits that keep any render bounded, whatever the templates and data.
struct RenderLimits: Sendable {
  /// Deepest nesting of sections, partials, parents and blocks while rendering.
  var maxDepth = 200
  /// Total nodes visited before rendering stops (guards exponential partial recursion).
  var maxNodes = 1_000_000
  /// Output size after which rendering stops.
  var maxBytes = 256 * 1024 * 1024

  static let standard = RenderLimits()
}

/// Walks a template's operations against a context stack, appending bytes to one buffer.
///
/// Two walks share the work: `walk` renders any operation, against values looked up by name or rows
/// read by field number, and `walkSteps` renders a bound program's steps (`Program.Step`) against
/// the rows it is bound to, without indentation. The second is the hot path (every card of every
/// fragment): it touches no reference count, resolves no name, renders single-pass sections in line,
/// and dispatches once per tag.
struct Renderer: ~Copyable {
  var output: MustacheOutput
  private var stack: [MustacheValue]
  /// The row being rendered of the innermost section over `.rows` (the rows themselves are passed down
  /// the walk as a parameter, so that reading a field retains nothing), and the element of the
  /// innermost bound section over a field.
  private var row = 0
  private var element = 0
  /// The schema of those rows, nil outside any section over rows: a program whose schema is the same
  /// reads them by field.
  private var rowsSchema: ObjectIdentifier?
  private var indent: [UInt8] = []
  /// Block arguments of the parent calls being rendered, outermost first (outermost wins), each with
  /// the program whose operations they are.
  private var arguments: [(program: Program, table: [String: Program.Argument])] = []
  private var depth = 0
  private var budget: Int
  private let limits: RenderLimits
  private let library: TemplateLibrary?
  /// The library's link identity: calls in programs it linked follow their links (see `Program.link`).
  private let linkerID: ObjectIdentifier?
  /// Set when a limit stopped rendering early.
  private(set) var exceeded = false

  /// `capacity`: the output's first allocation (it grows as needed).
  init(root: MustacheValue, library: TemplateLibrary?, limits: RenderLimits, capacity: Int) {
    self.output = MustacheOutput(capacity: capacity)
    self.stack = [root]
    self.library = library
    self.linkerID = library?.linkerID
    self.limits = limits
    self.budget = limits.maxNodes
  }

  // MARK: Lookup

  private func lookup(_ name: Int32, in program: Program) -> MustacheValue? {
    let name = program.names[Int(name)]
    guard let first = name.first else { return stack.last }
    let key = program.keys[first]
    // Contexts are read through the buffer (the array itself is not retained per lookup).
    let found = stack.withUnsafeBufferPointer { contexts -> MustacheValue? in
      var i = contexts.count - 1
      while i >= 0 {
        switch contexts[i] {
        case .dynamic(let object): if let found = object.value(for: key) { return found }
        case .object(let members): if let found = members[key] { return found }
        default: break
        }
        i -= 1
      }
      return nil
    }
    guard let found else { return nil }
    return first + 1 == name.upperBound ? found : found.member(program.keys, name.dropFirst())
  }

  /// The program that partial or parent call `link` (an index of `program.links`) names: the linked
  /// one when this render's library linked `program`, otherwise the library's by name (or none).
  /// Unretained: the library this render holds keeps it alive.
  @inline(__always)
  private func target(_ program: Program, _ link: Int, name: () -> String) -> Unmanaged<Program>? {
    if let linkerID, program.linkerID == linkerID { return program.links[link] }
    return library?.program(named: name()).map(Unmanaged.passUnretained)
  }

  // MARK: Output

  @inline(__always)
  private mutating func appendText(_ program: Program, _ start: Int32, _ end: Int32, _ lines: Int32) {
    // Every range was laid out by `Program` within its own `bytes`, and line starts lie inside it.
    let buffer = program.bytes
    guard lines >= 0 && !indent.isEmpty else {
      output.appendRaw(UnsafeBufferPointer(rebasing: buffer[Int(start)..<Int(end)]))
      return
    }
    appendIndented(program, Int(start), Int(end), program.lines[Int(lines)])
  }

  private mutating func appendIndented(_ program: Program, _ start: Int, _ end: Int, _ lines: Range<Int>) {
    let buffer = program.bytes
    var previous = start
    for line in lines {
      let offset = program.lineStarts[line]
      output.appendRaw(UnsafeBufferPointer(rebasing: buffer[previous..<offset]))
      appendIndent()
      previous = offset
    }
    output.appendRaw(UnsafeBufferPointer(rebasing: buffer[previous..<end]))
  }

  private mutating func appendIndent() {
    indent.withUnsafeBufferPointer { output.appendRaw($0) }
  }

  private mutating func append(_ value: MustacheValue, escaped: Bool) {
    switch value {
    case .string(let s): escaped ? output.appendEscaped(s) : output.appendRaw(s)
    case .html(let s): output.appendRaw(s)
    case .int(let i): output.append(i)
    case .double(let d):
      if d.isFinite && d == d.rounded() && abs(d) < 1e15 {
        output.append(Int(d))
      } else {
        output.appendRaw(d.description)
      }
    case .bool(let b): output.appendRaw(b ? "true" : "false")
    case .null, .list, .object, .dynamic, .rows: break
    }
  }

  // MARK: Walking

  /// Enters one nesting level; false (and `exceeded`) when a limit is hit.
  private mutating func enter() -> Bool {
    if depth >= limits.maxDepth || output.count > limits.maxBytes {
      exceeded = true
      return false
    }
    depth += 1
    return true
  }

  /// Counts one node visited; false (and `exceeded`) once the budget is spent.
  @inline(__always)
  private mutating func spend() -> Bool {
    budget -= 1
    if budget < 0 {
      exceeded = true
      return false
    }
    return true
  }

  /// Renders the whole of `program`.
  mutating func render(_ program: Program) {
    walk(program, 0, program.ops.count, rows: nil, bound: false)
  }

  /// Whether `program` reads the rows being rendered by field number (it is bound to their schema).
  @inline(__always)
  private func isBound(_ program: Program, to rows: (any MustacheRows)?) -> Bool {
    rows != nil && program.schemaID != nil && program.schemaID == rowsSchema
  }

  /// Renders `program.ops[start..<end]` inside a section over `rows`: by field when `bound`, through
  /// the program's steps when that is the whole program and nothing is indented.
  private mutating func run(
    _ program: Program, _ start: Int, _ end: Int, rows: (any MustacheRows)?, bound: Bool
  ) {
    if bound, let rows, start == 0, end == program.ops.count, indent.isEmpty, let steps = program.steps {
      walkSteps(program, steps, 0, steps.count, rows: rows)
    } else {
      walk(program, start, end, rows: rows, bound: bound)
    }
  }

  /// Calls `target` as a partial or parent with `added` indentation (nil: indentation resets).
  private mutating func call(_ target: Program, indent added: [UInt8]?, rows: (any MustacheRows)?) {
    let saved = indent
    indent = added.map { saved + $0 } ?? []
    run(target, 0, target.ops.count, rows: rows, bound: isBound(target, to: rows))
    indent = saved
  }

  /// Calls `target` as `program`'s partial `index`.
  @inline(__always)
  private mutating func callPartial(
    _ target: Unmanaged<Program>, of program: Program, _ index: Int, rows: (any MustacheRows)?
  ) {
    // Used without a retain: the library this render holds keeps every program alive (see `target`).
    target._withUnsafeGuaranteedRef { target in
      if indent.isEmpty && !program.indentsPartials {
        // Indentation stays empty, whatever the call adds (nothing) or resets.
        run(target, 0, target.ops.count, rows: rows, bound: isBound(target, to: rows))
      } else {
        call(target, indent: program.partials[index].indent, rows: rows)
      }
    }
  }

  /// Renders `steps[start..<end]` of `program`, bound to `rows` (see `isBound`), with no indentation.
  private mutating func walkSteps(
    _ program: Program, _ steps: UnsafeBufferPointer<Program.Step>, _ start: Int, _ end: Int,
    rows: any MustacheRows
  ) {
    // The program's tables are read through its buffers: trivial values, nothing retained. Every
    // text range was laid out within `bytes`.
    let bytes = program.bytes
    var k = start
    while k < end {
      guard spend() else { return }
      let step = steps[k]
      k += 1
      if step.textEnd != step.textStart {
        output.appendRaw(UnsafeBufferPointer(rebasing: bytes[Int(step.textStart)..<Int(step.textEnd)]))
      }
      // Most steps write an escaped field: a branch that is mostly taken costs less than the jump
      // table's indirect jump, which the mix of actions mispredicts.
      if step.action == .field {
        output.escapes = true
        rows.write(Int(step.field), row: row, element: 0, to: &output)
        continue
      }
      switch step.action {
      case .text:
        break
      case .field, .rawField:
        output.escapes = step.action == .field
        rows.write(Int(step.field), row: row, element: 0, to: &output)
      case .element, .rawElement:
        output.escapes = step.action == .element
        rows.write(Int(step.field), row: row, element: element, to: &output)
      case .section, .flatSection:
        let count = rows.count(of: Int(step.field), row: row)
        // One pass over content that reads no element goes on in line: the content is the next
        // steps, and the walk continues after them.
        if count == 1 && step.action == .flatSection { continue }
        let next = Int(step.next)
        defer { k = next }
        guard count > 0, enter() else { continue }
        let saved = element
        for index in 0..<count {
          element = index
          walkSteps(program, steps, k, next, rows: rows)
        }
        element = saved
        depth -= 1
      case .inverted:
        // The content, when it renders, is the next steps.
        if rows.count(of: Int(step.field), row: row) > 0 { k = Int(step.next) }
      case .partial:
        let index = Int(step.next)
        guard let target = target(program, index, name: { program.partials[index].name }), enter() else {
          continue
        }
        callPartial(target, of: program, index, rows: rows)
        depth -= 1
      }
    }
  }

  /// Renders `program.ops[start..<end]` inside a section over `rows` (nil outside any), looking names
  /// up; `bound` is `isBound(program, to: rows)` (then fields are read by number).
  private mutating func walk(
    _ program: Program, _ start: Int, _ end: Int, rows: (any MustacheRows)?, bound: Bool
  ) {
    var k = start
    while k < end {
      guard spend() else { return }
      let op = program.ops[k]
      k += 1
      switch op {
      case .text(let from, let to, let lines):
        appendText(program, from, to, lines)
      case .indent:
        if !indent.isEmpty { appendIndent() }
      case .variable(let name, let field, let escaped):
        if bound, let rows {
          output.escapes = escaped
          rows.write(Int(field), row: row, element: 0, to: &output)
        } else if let value = lookup(name, in: program) {
          append(value, escaped: escaped)
        }
      case .element(let field, let escaped):
        if bound, let rows {
          output.escapes = escaped
          rows.write(Int(field), row: row, element: element, to: &output)
        } else if let value = stack.last {
          append(value, escaped: escaped)
        }
      case .section(let name, let bodyEnd, let field):
        defer { k = Int(bodyEnd) }
        if bound, let rows {
          let count = rows.count(of: Int(field), row: row)
          guard count > 0, enter() else { continue }
          let saved = element
          for index in 0..<count {
            element = index
            walk(program, k, Int(bodyEnd), rows: rows, bound: true)
          }
          element = saved
          depth -= 1
          continue
        }
        guard let value = lookup(name, in: program), value.isTruthy, enter() else { continue }
        switch value {
        case .list(let items):
          for item in items {
            stack.append(item)
            run(program, k, Int(bodyEnd), rows: rows, bound: bound)
            stack.removeLast()
          }
        case .rows(let list):
          let savedRow = row
          let savedSchema = rowsSchema
          rowsSchema = ObjectIdentifier(list.schema)
          let listBound = isBound(program, to: list)
          // Rows are contexts only to bound programs: others see an empty context.
          stack.append(.null)
          for index in 0..<list.count {
            row = index
            run(program, k, Int(bodyEnd), rows: list, bound: listBound)
          }
          stack.removeLast()
          rowsSchema = savedSchema
          row = savedRow
        default:
          stack.append(value)
          run(program, k, Int(bodyEnd), rows: rows, bound: bound)
          stack.removeLast()
        }
        depth -= 1
      case .inverted(let name, let bodyEnd, let field):
        defer { k = Int(bodyEnd) }
        if bound, let rows {
          if rows.count(of: Int(field), row: row) > 0 { continue }
        } else if let value = lookup(name, in: program), value.isTruthy {
          continue
        }
        run(program, k, Int(bodyEnd), rows: rows, bound: bound)
      case .partial(let index):
        let index = Int(index)
        guard let target = target(program, index, name: { program.partials[index].name }), enter() else {
          continue
        }
        callPartial(target, of: program, index, rows: rows)
        depth -= 1
      case .parent(let index, let argumentsEnd):
        defer { k = Int(argumentsEnd) }
        let index = Int(index)
        let link = program.partials.count + index
        guard let target = target(program, link, name: { program.parents[index].name }), enter() else {
          continue
        }
        let parent = program.parents[index]
        arguments.append((program, parent.arguments))
        // Used without a retain, as in `callPartial`.
        target._withUnsafeGuaranteedRef { call($0, indent: parent.indent, rows: rows) }
        arguments.removeLast()
        depth -= 1
      case .block(let index, let contentEnd):
        defer { k = Int(contentEnd) }
        guard enter() else { continue }
        let block = program.blocks[Int(index)]
        if let (owner, argument) = argument(named: block.name) {
          let saved = indent
          indent = saved + block.indent
          if block.standalone && argument.leadingLineStart { appendIndent() }
          run(owner, argument.start, argument.end, rows: rows, bound: isBound(owner, to: rows))
          indent = saved
        } else {
          run(program, k, Int(contentEnd), rows: rows, bound: bound)
        }
        depth -= 1
      }
    }
  }

  private func argument(named name: String) -> (Program, Program.Argument)? {
    for frame in arguments {
      if let found = frame.table[name] { return (frame.program, found) }
    }
    return nil
  }
}
