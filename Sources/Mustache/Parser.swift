/// Turns template source into the immutable node tree: pairs tags, applies the spec's standalone and
/// indentation rules, then builds nodes.
struct Parser {
  /// Deepest nesting of sections, blocks and parents a template may have (keeps recursion bounded).
  static let maxNesting = 100

  private let lexer: Lexer
  private var tokens: [Token] = []
  /// Partial and parent names referenced, with the tag's byte offset (checked by libraries).
  private(set) var references: [(name: String, offset: Int)] = []

  init(source: String, file: String) {
    lexer = Lexer(source: Array(source.utf8), file: file)
  }

  private var source: [UInt8] { lexer.source }

  mutating func parse() throws(MustacheError) -> [Node] {
    tokens = try lexer.tokenize()
    try pair()
    markStandalone()
    for k in tokens.indices where tokens[k].kind == .text {
      let t = tokens[k]
      tokens[k].bytes = Array(source[t.textStart..<t.textEnd])
      tokens[k].atLineStart = t.textStart == 0 || source[t.textStart - 1] == UInt8(ascii: "\n")
    }
    outdentOverrides()
    return build(0, tokens.count)
  }

  // MARK: Pairing

  private mutating func pair() throws(MustacheError) {
    var stack: [Int] = []
    for k in tokens.indices {
      switch tokens[k].kind {
      case .text:
        tokens[k].textStart = tokens[k].start
        tokens[k].textEnd = tokens[k].end
      case .section, .inverted, .parent, .block:
        if tokens[k].kind == .block, let top = stack.last, tokens[top].kind == .parent {
          tokens[k].isOverride = true
        }
        stack.append(k)
        if stack.count > Parser.maxNesting {
          throw lexer.error("sections nested deeper than \(Parser.maxNesting)", at: tokens[k].start)
        }
      case .close:
        guard let top = stack.popLast() else {
          throw lexer.error("closing tag '\(tokens[k].name)' without an opening tag", at: tokens[k].start)
        }
        guard tokens[top].name == tokens[k].name else {
          let (line, column) = sourceLocation(of: tokens[top].start, in: source)
          throw lexer.error(
            "closing tag '\(tokens[k].name)' does not match '\(tokens[top].name)' opened at \(line):\(column)",
            at: tokens[k].start)
        }
        tokens[top].partner = k
        tokens[k].partner = top
        tokens[k].isOverride = tokens[top].isOverride
      default: break
      }
    }
    if let open = stack.last {
      throw lexer.error("section '\(tokens[open].name)' is never closed", at: tokens[open].start)
    }
  }

  // MARK: Standalone lines

  private static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }

  /// Start of the line holding `pos` if only blanks precede `pos` on it.
  private func lineStart(before pos: Int) -> Int? {
    var j = pos
    while j > 0 {
      let b = source[j - 1]
      if b == UInt8(ascii: "\n") { return j }
      if !Parser.isBlank(b) { return nil }
      j -= 1
    }
    return 0
  }

  /// Position after the line end following `pos` if only blanks come before it.
  private func lineEnd(after pos: Int) -> Int? {
    var j = pos
    let n = source.count
    while j < n {
      let b = source[j]
      if b == UInt8(ascii: "\n") { return j + 1 }
      if b == UInt8(ascii: "\r") && j + 1 < n && source[j + 1] == UInt8(ascii: "\n") { return j + 2 }
      if !Parser.isBlank(b) { return nil }
      j += 1
    }
    return n
  }

  private func blankRun(at pos: Int) -> [UInt8] {
    var j = pos
    while j < source.count && Parser.isBlank(source[j]) { j += 1 }
    return Array(source[pos..<j])
  }

  private mutating func trimEnd(_ k: Int, to pos: Int) {
    guard k >= 0, k < tokens.count, tokens[k].kind == .text else { return }
    tokens[k].textEnd = max(tokens[k].textStart, min(tokens[k].textEnd, pos))
  }

  private mutating func trimStart(_ k: Int, to pos: Int) {
    guard k >= 0, k < tokens.count, tokens[k].kind == .text else { return }
    tokens[k].textStart = min(tokens[k].textEnd, max(tokens[k].textStart, pos))
  }

  private mutating func markStandalone() {
    for k in tokens.indices where tokens[k].isTag {
      let t = tokens[k]
      let ls = lineStart(before: t.start)
      if let ls { tokens[k].wsBefore = Array(source[ls..<t.start]) }
      switch t.kind {
      case .text, .variable, .rawVariable: break
      case .parent:
        // The whole call is one unit: clear before the opener and after the closer.
        let closer = t.partner
        if let ls, let le = lineEnd(after: tokens[closer].end) {
          tokens[k].standalone = true
          tokens[closer].standalone = true
          trimEnd(k - 1, to: ls)
          trimStart(closer + 1, to: le)
        }
      case .close where tokens[t.partner].kind == .parent: break
      case .block where t.isOverride:
        // An argument's opener only needs to end its line; what precedes it is ignored text.
        if let le = lineEnd(after: t.end) {
          tokens[k].standalone = true
          tokens[k].intrinsic = blankRun(at: le)
          trimStart(k + 1, to: le)
        }
      case .close where t.isOverride:
        // An argument's closer ends its content like an end of file: only leading blanks go.
        if let ls {
          tokens[k].standalone = true
          trimEnd(k - 1, to: ls)
        }
      default:
        if let ls, let le = lineEnd(after: t.end) {
          tokens[k].standalone = true
          if t.kind == .block { tokens[k].intrinsic = blankRun(at: le) }
          trimEnd(k - 1, to: ls)
          trimStart(k + 1, to: le)
        }
      }
    }
  }

  // MARK: Block reindentation

  /// Removes common leading blanks of `prefix` from `bytes`.
  private static func strip(_ bytes: [UInt8], _ prefix: [UInt8]) -> [UInt8] {
    var n = 0
    while n < bytes.count && n < prefix.count && bytes[n] == prefix[n] { n += 1 }
    return n == 0 ? bytes : Array(bytes[n...])
  }

  /// Removes `prefix` from every line start of a text.
  private static func outdent(_ bytes: [UInt8], atLineStart: Bool, _ prefix: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var i = 0
    var lineStart = atLineStart
    while i < bytes.count {
      if lineStart {
        var n = 0
        while i + n < bytes.count && n < prefix.count && bytes[i + n] == prefix[n] { n += 1 }
        i += n
        lineStart = false
        continue
      }
      let b = bytes[i]
      out.append(b)
      if b == UInt8(ascii: "\n") { lineStart = true }
      i += 1
    }
    return out
  }

  /// Arguments passed to parents lose their own indentation (the first line's blanks) here; the
  /// expansion site adds its own when rendering.
  private mutating func outdentOverrides() {
    for k in tokens.indices where tokens[k].kind == .block && tokens[k].isOverride && tokens[k].standalone {
      let prefix = tokens[k].intrinsic
      if prefix.isEmpty { continue }
      let closer = tokens[k].partner
      var j = k + 1
      while j < closer {
        if tokens[j].kind == .text {
          tokens[j].bytes = Parser.outdent(tokens[j].bytes, atLineStart: tokens[j].atLineStart, prefix)
        } else {
          if let ws = tokens[j].wsBefore { tokens[j].wsBefore = Parser.strip(ws, prefix) }
          if tokens[j].kind == .block && tokens[j].standalone {
            tokens[j].intrinsic = Parser.strip(tokens[j].intrinsic, prefix)
          }
        }
        j += 1
      }
    }
  }

  // MARK: Tree

  /// Line-start offsets of a text: its start if it begins a line, and after each inner newline.
  private static func lineStarts(_ bytes: [UInt8], atLineStart: Bool) -> [Int] {
    var starts: [Int] = []
    if atLineStart && !bytes.isEmpty { starts.append(0) }
    for (i, b) in bytes.enumerated() where b == UInt8(ascii: "\n") && i + 1 < bytes.count {
      starts.append(i + 1)
    }
    return starts
  }

  private static func appendText(_ nodes: inout [Node], _ bytes: [UInt8], atLineStart: Bool) {
    guard !bytes.isEmpty else { return }
    var starts = lineStarts(bytes, atLineStart: atLineStart)
    var bytes = bytes
    switch nodes.last {
    case .text(let previous, let previousStarts):
      starts = previousStarts + starts.map { $0 + previous.count }
      bytes = previous + bytes
      nodes.removeLast()
    case .indent:
      if starts.first != 0 { starts.insert(0, at: 0) }
      nodes.removeLast()
    default: break
    }
    nodes.append(.text(bytes, lineStarts: starts))
  }

  /// A tag that is not standalone and starts its line marks a line start.
  private func lineStartMarker(_ k: Int, _ nodes: inout [Node]) {
    if !tokens[k].standalone, let ws = tokens[k].wsBefore, ws.isEmpty {
      if case .indent = nodes.last { return }
      nodes.append(.indent)
    }
  }

  private mutating func build(_ from: Int, _ to: Int) -> [Node] {
    var nodes: [Node] = []
    var k = from
    while k < to {
      let t = tokens[k]
      switch t.kind {
      case .text:
        Parser.appendText(&nodes, t.bytes, atLineStart: t.atLineStart)
      case .variable, .rawVariable:
        lineStartMarker(k, &nodes)
        nodes.append(.variable(Path(t.name, offset: t.start), escaped: t.kind == .variable))
      case .comment, .delimiters, .close:
        lineStartMarker(k, &nodes)
      case .section, .inverted:
        lineStartMarker(k, &nodes)
        let inner = sectionBody(k)
        nodes.append(
          t.kind == .section
            ? .section(Path(t.name, offset: t.start), inner) : .inverted(Path(t.name, offset: t.start), inner)
        )
        k = t.partner
      case .block:
        lineStartMarker(k, &nodes)
        let inner = sectionBody(k)
        let indent = t.standalone ? t.intrinsic : (t.wsBefore ?? [])
        nodes.append(
          .block(BlockNode(name: t.name, content: inner, indent: indent, standalone: t.standalone)))
        k = t.partner
      case .partial:
        lineStartMarker(k, &nodes)
        references.append((t.name, t.start))
        nodes.append(.partial(PartialNode(name: t.name, indent: t.standalone ? (t.wsBefore ?? []) : nil)))
      case .parent:
        lineStartMarker(k, &nodes)
        references.append((t.name, t.start))
        nodes.append(
          .parent(
            ParentNode(
              name: t.name, indent: t.standalone ? (t.wsBefore ?? []) : nil, overrides: arguments(k))))
        k = t.partner
      }
      k += 1
    }
    return nodes
  }

  /// Content of a section or block, with the closer's own line-start marker.
  private mutating func sectionBody(_ k: Int) -> [Node] {
    let closer = tokens[k].partner
    var inner = build(k + 1, closer)
    lineStartMarker(closer, &inner)
    return inner
  }

  /// The blocks directly inside a parent call; any other content there is ignored.
  private mutating func arguments(_ k: Int) -> [String: Override] {
    var result: [String: Override] = [:]
    var j = k + 1
    let closer = tokens[k].partner
    while j < closer {
      let t = tokens[j]
      if t.kind == .block && t.isOverride {
        var nodes = build(j + 1, t.partner)
        var leading = false
        switch nodes.first {
        case .indent:
          nodes.removeFirst()
          leading = true
        case .text(let bytes, let starts) where starts.first == 0:
          nodes[0] = .text(bytes, lineStarts: Array(starts.dropFirst()))
          leading = true
        default: break
        }
        result[t.name] = Override(nodes: nodes, leadingLineStart: leading)
      }
      j = t.partner > j ? t.partner + 1 : j + 1
    }
    return result
  }
}
