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
struct Renderer {
  var out: [UInt8]
  private var stack: [MustacheValue]
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

  init(out: [UInt8], root: MustacheValue, library: TemplateLibrary?, limits: RenderLimits) {
    self.out = out
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
    program.bytes.withUnsafeBufferPointer { buffer in
      guard !indent.isEmpty && !lines.isEmpty else {
        out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<end]))
        return
      }
      var previous = start
      for line in lines {
        let offset = program.lineStarts[line]
        out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[previous..<offset]))
        out.append(contentsOf: indent)
        previous = offset
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[previous..<end]))
    }
  }

  private mutating func appendRaw(_ s: String) {
    // Native strings are read in place; only a foreign one is first copied (made contiguous).
    if s.utf8.withContiguousStorageIfAvailable({ out.append(contentsOf: $0) }) == nil {
      var copy = s
      copy.withUTF8 { out.append(contentsOf: $0) }
    }
  }

  private mutating func appendEscaped(_ s: String) {
    // Native strings are read in place; only a foreign one is first copied (made contiguous).
    if s.utf8.withContiguousStorageIfAvailable({ appendEscaped(bytes: $0) }) == nil {
      var copy = s
      copy.withUTF8 { appendEscaped(bytes: $0) }
    }
  }

  private mutating func appendEscaped(bytes: UnsafeBufferPointer<UInt8>) {
    // One pass over the UTF-8 bytes, read only while the caller holds them; runs are sliced within
    // bounds (i < n).
    var runStart = 0
    var i = 0
    let n = bytes.count
    while i < n {
      let b = bytes[i]
      if b <= 0x3E {
        let entity: StaticString?
        switch b {
        case 0x26: entity = "&amp;"
        case 0x3C: entity = "&lt;"
        case 0x3E: entity = "&gt;"
        case 0x22: entity = "&quot;"
        case 0x27: entity = "&#39;"
        default: entity = nil
        }
        if let entity {
          if i > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
          // Entities are multi-character literals, so the StaticString has a valid UTF-8 pointer.
          out.append(
            contentsOf: UnsafeBufferPointer(start: entity.utf8Start, count: entity.utf8CodeUnitCount))
          runStart = i + 1
        }
      }
      i += 1
    }
    if n > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<n])) }
  }

  private mutating func appendInt(_ value: Int) {
    if value >= 0 && value < 10 {
      out.append(UInt8(ascii: "0") + UInt8(value))
      return
    }
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch space, enough for Int.min
    // Writes at most 20 bytes (19 digits and a sign) backwards into the 24-byte local scratch.
    withUnsafeMutableBytes(of: &digits) { scratch in
      var magnitude = value.magnitude
      var i = scratch.count
      repeat {
        i -= 1
        scratch[i] = UInt8(ascii: "0") + UInt8(magnitude % 10)
        magnitude /= 10
      } while magnitude > 0
      if value < 0 {
        i -= 1
        scratch[i] = UInt8(ascii: "-")
      }
      out.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[i...]))
    }
  }

  private mutating func append(_ value: MustacheValue, escaped: Bool) {
    switch value {
    case .string(let s): escaped ? appendEscaped(s) : appendRaw(s)
    case .html(let s): appendRaw(s)
    case .int(let i): appendInt(i)
    case .double(let d):
      if d.isFinite && d == d.rounded() && abs(d) < 1e15 {
        appendInt(Int(d))
      } else {
        appendRaw(d.description)
      }
    case .bool(let b): appendRaw(b ? "true" : "false")
    case .null, .list, .object, .dynamic: break
    }
  }

  // MARK: Walking

  /// Enters one nesting level; false (and `exceeded`) when a limit is hit.
  private mutating func enter() -> Bool {
    if depth >= limits.maxDepth || out.count > limits.maxBytes {
      exceeded = true
      return false
    }
    depth += 1
    return true
  }

  /// Renders the whole of `program`.
  mutating func render(_ program: Program) {
    render(program, 0, program.ops.count)
  }

  /// Renders `program.ops[start..<end]`.
  private mutating func render(_ program: Program, _ start: Int, _ end: Int) {
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
        if !indent.isEmpty { out.append(contentsOf: indent) }
      case .variable(let name, let escaped):
        if let value = lookup(name, in: program) { append(value, escaped: escaped) }
      case .section(let name, let bodyEnd):
        defer { k = bodyEnd }
        guard let value = lookup(name, in: program), value.isTruthy, enter() else { continue }
        if case .list(let items) = value {
          for item in items {
            stack.append(item)
            render(program, k, bodyEnd)
            stack.removeLast()
          }
        } else {
          stack.append(value)
          render(program, k, bodyEnd)
          stack.removeLast()
        }
        depth -= 1
      case .inverted(let name, let bodyEnd):
        defer { k = bodyEnd }
        if let value = lookup(name, in: program), value.isTruthy { continue }
        render(program, k, bodyEnd)
      case .partial(let index):
        // Fields are read in place: copying the partial would retain strings every thread shares.
        guard let called = library?.program(named: program.partials[index].name), enter() else { continue }
        let saved = indent
        indent = program.partials[index].indent.map { saved + $0 } ?? []
        render(called)
        indent = saved
        depth -= 1
      case .parent(let index, let argumentsEnd):
        defer { k = argumentsEnd }
        let parent = program.parents[index]
        guard let called = library?.program(named: parent.name), enter() else { continue }
        let saved = indent
        indent = parent.indent.map { saved + $0 } ?? []
        arguments.append((program, parent.arguments))
        render(called)
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
          if block.standalone && argument.leadingLineStart { out.append(contentsOf: indent) }
          render(owner, argument.start, argument.end)
          indent = saved
        } else {
          render(program, k, contentEnd)
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
