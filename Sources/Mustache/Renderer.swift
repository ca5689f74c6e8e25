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
struct Renderer: ~Copyable {
  var output: MustacheOutput
  private var stack: [MustacheValue]
  /// The row being rendered of the innermost section over `.rows` (the rows themselves are passed down
  /// the walk as a parameter, so that reading a field retains nothing), and the element of the
  /// innermost bound section over a field.
  private var row = 0
  private var element = 0
  private var indent: [UInt8] = []
  /// Block arguments of the parent calls being rendered, outermost first (outermost wins), each with
  /// the program whose operations they are.
  private var arguments: [(program: Program, table: [String: Program.Argument])] = []
  private var depth = 0
  private var budget: Int
  private let limits: RenderLimits
  private let library: TemplateLibrary?
  /// Set when a limit stopped rendering early.
  private(set) var exceeded = false

  /// `capacity`: the output's first allocation (it grows as needed).
  init(root: MustacheValue, library: TemplateLibrary?, limits: RenderLimits, capacity: Int) {
    self.output = MustacheOutput(capacity: capacity)
    self.stack = [root]
    self.library = library
    self.limits = limits
    self.budget = limits.maxNodes
  }

  // MARK: Lookup

  private func lookup(_ name: Range<Int>, in program: Program) -> MustacheValue? {
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

  // MARK: Output

  private mutating func appendText(_ program: Program, _ start: Int, _ end: Int, _ lines: Range<Int>) {
    // Every range was laid out by `Program` within its own `bytes`, and line starts lie inside it.
    let buffer = program.bytes
    guard !indent.isEmpty && !lines.isEmpty else {
      output.appendRaw(UnsafeBufferPointer(rebasing: buffer[start..<end]))
      return
    }
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

  /// Renders the whole of `program`.
  mutating func render(_ program: Program) {
    render(program, rows: nil)
  }

  /// Renders the whole of `program` inside a section over `rows`.
  private mutating func render(_ program: Program, rows: (any MustacheRows)?) {
    render(program, 0, program.ops.count, rows: rows, bound: isBound(program, to: rows))
  }

  /// Whether `program` reads `rows` by field number (it is bound to their schema).
  private func isBound(_ program: Program, to rows: (any MustacheRows)?) -> Bool {
    guard let schema = program.schema, let rows else { return false }
    return schema === rows.schema
  }

  /// Renders `program.ops[start..<end]` inside a section over `rows` (nil outside any);
  /// `bound` is `isBound(program, to: rows)`.
  private mutating func render(
    _ program: Program, _ start: Int, _ end: Int, rows: (any MustacheRows)?, bound: Bool
  ) {
    var k = start
    while k < end {
      budget -= 1
      if budget < 0 {
        exceeded = true
        return
      }
      let op = program.ops[k]
      k += 1
      switch op {
      case .text(let from, let to, let lines):
        appendText(program, from, to, lines)
      case .indent:
        if !indent.isEmpty { appendIndent() }
      case .variable(let name, let escaped, let field):
        if bound {
          let rows = rows.unsafelyUnwrapped  // `bound` implies rows (see `isBound`)
          output.escapes = escaped
          rows.write(field, row: row, element: 0, to: &output)
        } else if let value = lookup(name, in: program) {
          append(value, escaped: escaped)
        }
      case .element(let field, let escaped):
        if bound {
          let rows = rows.unsafelyUnwrapped  // `bound` implies rows (see `isBound`)
          output.escapes = escaped
          rows.write(field, row: row, element: element, to: &output)
        } else if let value = stack.last {
          append(value, escaped: escaped)
        }
      case .section(let name, let bodyEnd, let field):
        defer { k = bodyEnd }
        if bound {
          let rows = rows.unsafelyUnwrapped  // `bound` implies rows (see `isBound`)
          let count = rows.count(of: field, row: row)
          guard count > 0, enter() else { continue }
          let saved = element
          for index in 0..<count {
            element = index
            render(program, k, bodyEnd, rows: rows, bound: true)
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
            render(program, k, bodyEnd, rows: rows, bound: bound)
            stack.removeLast()
          }
        case .rows(let list):
          let saved = row
          let listBound = isBound(program, to: list)
          // Rows are contexts only to bound programs: others see an empty context.
          stack.append(.null)
          for index in 0..<list.count {
            row = index
            render(program, k, bodyEnd, rows: list, bound: listBound)
          }
          stack.removeLast()
          row = saved
        default:
          stack.append(value)
          render(program, k, bodyEnd, rows: rows, bound: bound)
          stack.removeLast()
        }
        depth -= 1
      case .inverted(let name, let bodyEnd, let field):
        defer { k = bodyEnd }
        if bound {
          let rows = rows.unsafelyUnwrapped  // `bound` implies rows (see `isBound`)
          if rows.count(of: field, row: row) > 0 { continue }
        } else if let value = lookup(name, in: program), value.isTruthy {
          continue
        }
        render(program, k, bodyEnd, rows: rows, bound: bound)
      case .partial(let index):
        // Fields are read in place: copying the partial would retain strings every thread shares.
        guard let called = library?.program(named: program.partials[index].name), enter() else { continue }
        let saved = indent
        indent = program.partials[index].indent.map { saved + $0 } ?? []
        render(called, rows: rows)
        indent = saved
        depth -= 1
      case .parent(let index, let argumentsEnd):
        defer { k = argumentsEnd }
        let parent = program.parents[index]
        guard let called = library?.program(named: parent.name), enter() else { continue }
        let saved = indent
        indent = parent.indent.map { saved + $0 } ?? []
        arguments.append((program, parent.arguments))
        render(called, rows: rows)
        arguments.removeLast()
        indent = saved
        depth -= 1
      case .block(let index, let contentEnd):
        defer { k = contentEnd }
        guard enter() else { continue }
        let block = program.blocks[index]
        if let (owner, argument) = argument(named: block.name) {
          let saved = indent
          indent = saved + block.indent
          if block.standalone && argument.leadingLineStart { appendIndent() }
          render(owner, argument.start, argument.end, rows: rows, bound: isBound(owner, to: rows))
          indent = saved
        } else {
          render(program, k, contentEnd, rows: rows, bound: bound)
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
