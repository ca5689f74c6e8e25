/// A template parsed once into an immutable tree; rendering never re-reads the source.
public struct Template: Sendable {
  /// The name given at parse time (a library uses the relative path without extension).
  public let name: String
  /// The parsed tree laid out flat for rendering.
  let program: Program
  /// Partials and parents this template names, for load-time checks by a library.
  let references: [(name: String, line: Int, column: Int)]

  /// Parses `source`; a syntax error names `name` as its file with line and column.
  public init(_ source: String, name: String = "") throws(MustacheError) {
    try self.init(source, name: name, file: name)
  }

  /// Parses `source`; with a schema, every name must be one of its fields (see `MustacheRows`); with a
  /// vocabulary instead, one of its names. `trimWhitespace` as for `TemplateLibrary`.
  init(
    _ source: String, name: String, file: String, schema: MustacheSchema? = nil,
    vocabulary: MustacheSchema? = nil, trimWhitespace: Bool = false
  ) throws(MustacheError) {
    var parser = Parser(source: source, file: file, trimWhitespace: trimWhitespace)
    self.name = name
    let bytes = Array(source.utf8)
    self.program = try Program(
      try parser.parse(), schema: schema, vocabulary: vocabulary, file: file, source: bytes)
    self.references = parser.references.map { reference in
      let (line, column) = sourceLocation(of: reference.offset, in: bytes)
      return (reference.name, line, column)
    }
  }

  /// Renders into `buffer` (appending). Without a library, partials and parents render empty, as the
  /// spec says for missing partials. Rendering stops early at the built-in depth and size limits.
  public func render(_ value: MustacheValue, into buffer: inout [UInt8], partials: TemplateLibrary? = nil) {
    _ = render(value, into: &buffer, partials: partials, limits: .standard)
  }

  /// Renders to a string, without partials.
  public func render(_ value: MustacheValue) -> String {
    render(value, partials: nil)
  }

  /// Renders to a string, taking partials and parents from `partials`.
  public func render(_ value: MustacheValue, partials: TemplateLibrary?) -> String {
    var buffer: [UInt8] = []
    render(value, into: &buffer, partials: partials)
    return String(decoding: buffer, as: UTF8.self)
  }

  /// Renders and reports whether every limit held.
  func render(
    _ value: MustacheValue, into buffer: inout [UInt8], partials: TemplateLibrary?, limits: RenderLimits
  ) -> Bool {
    // Rendered into the renderer's own memory (sized by the room the caller reserved), then appended.
    var renderer = Renderer(
      root: value, library: partials, limits: limits, capacity: max(4096, buffer.capacity - buffer.count))
    renderer.render(program)
    renderer.output.withBytes { buffer.append(contentsOf: $0) }
    return !renderer.exceeded
  }
}
