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

/// Walks a node tree against a context stack, appending bytes to one buffer.
struct Renderer {
  var out: [UInt8]
  private var stack: [MustacheValue]
  private var indent: [UInt8] = []
  /// Block arguments of the parent calls being rendered, outermost first (outermost wins).
  private var overrides: [[String: Override]] = []
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

  private func lookup(_ path: Path) -> MustacheValue? {
    let components = path.components
    guard let first = components.first else { return stack.last }
    var i = stack.count - 1
    while i >= 0 {
      if case .object(let dict) = stack[i], let found = dict[first] {
        var value = found
        var c = 1
        while c < components.count {
          guard case .object(let inner) = value, let next = inner[components[c]] else { return nil }
          value = next
          c += 1
        }
        return value
      }
      i -= 1
    }
    return nil
  }

  // MARK: Output

  private mutating func appendIndented(_ bytes: [UInt8], _ starts: [Int]) {
    var previous = 0
    // Slices stay within the buffer: line starts are offsets inside `bytes`, made by the parser.
    bytes.withUnsafeBufferPointer { buffer in
      for start in starts {
        out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[previous..<start]))
        out.append(contentsOf: indent)
        previous = start
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[previous...]))
    }
  }

  private mutating func appendRaw(_ s: String) {
    var s = s
    // The UTF-8 view is only read inside the closure, while `s` is alive.
    s.withUTF8 { out.append(contentsOf: $0) }
  }

  private mutating func appendEscaped(_ s: String) {
    var s = s
    // One pass over the UTF-8 bytes, read only inside the closure; runs are sliced within bounds (i < n).
    s.withUTF8 { bytes in
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
    case .null, .list, .object: break
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

  mutating func render(_ nodes: [Node]) {
    budget -= nodes.count
    if budget < 0 {
      exceeded = true
      return
    }
    for node in nodes {
      switch node {
      case .text(let bytes, let starts):
        if indent.isEmpty || starts.isEmpty {
          out.append(contentsOf: bytes)
        } else {
          appendIndented(bytes, starts)
        }
      case .indent:
        if !indent.isEmpty { out.append(contentsOf: indent) }
      case .variable(let path, let escaped):
        if let value = lookup(path) { append(value, escaped: escaped) }
      case .section(let path, let inner):
        guard let value = lookup(path), value.isTruthy, enter() else { continue }
        if case .list(let items) = value {
          for item in items {
            stack.append(item)
            render(inner)
            stack.removeLast()
          }
        } else {
          stack.append(value)
          render(inner)
          stack.removeLast()
        }
        depth -= 1
      case .inverted(let path, let inner):
        if let value = lookup(path), value.isTruthy { continue }
        render(inner)
      case .partial(let partial):
        guard let template = library?.template(named: partial.name), enter() else { continue }
        let saved = indent
        indent = partial.indent.map { saved + $0 } ?? []
        render(template.nodes)
        indent = saved
        depth -= 1
      case .parent(let parent):
        guard let template = library?.template(named: parent.name), enter() else { continue }
        let saved = indent
        indent = parent.indent.map { saved + $0 } ?? []
        overrides.append(parent.overrides)
        render(template.nodes)
        overrides.removeLast()
        indent = saved
        depth -= 1
      case .block(let block):
        guard enter() else { continue }
        if let argument = override(named: block.name) {
          let saved = indent
          indent = saved + block.indent
          if block.standalone && argument.leadingLineStart { out.append(contentsOf: indent) }
          render(argument.nodes)
          indent = saved
        } else {
          render(block.content)
        }
        depth -= 1
      }
    }
  }

  private func override(named name: String) -> Override? {
    for frame in overrides {
      if let found = frame[name] { return found }
    }
    return nil
  }
}
