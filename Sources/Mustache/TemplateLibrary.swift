/// A set of named templates, all parsed and cross-checked when the library is created.
public struct TemplateLibrary: Sendable {
  private let templates: [String: Template]
  /// Each template's operations by name: a partial call fetches one reference, not a whole `Template`.
  private let programs: [String: Program]

  /// The names of all templates, sorted.
  public var names: [String] { templates.keys.sorted() }

  /// Loads every `*.<extension>` file below `directory`, naming each by its relative path without the
  /// extension (`partials/card`). Syntax errors and references to missing partials or parents throw.
  ///
  /// `bindings` binds templates by name to the schema of the rows they render (see `MustacheRows`):
  /// a name that is not a field of the schema, a bound template that is missing, or a bound template
  /// calling one not bound to the same schema throws, with file, line and column.
  public init(
    directory: String, extension: String = "mustache", bindings: [String: MustacheSchema] = [:]
  ) throws(MustacheError) {
    let files = try TemplateFiles.list(root: directory, extension: `extension`)
    var parsed: [String: Template] = [:]
    var paths: [String: String] = [:]
    for file in files {
      let source = try TemplateFiles.read(file.path)
      parsed[file.name] = try Template(source, name: file.name, file: file.path, schema: bindings[file.name])
      paths[file.name] = file.path
    }
    try TemplateLibrary.check(parsed, bindings: bindings, files: paths, directory: directory)
    templates = parsed
    programs = parsed.mapValues(\.program)
  }

  /// Parses each source under its key as the template's name; `bindings` as for a folder.
  public init(templates sources: [String: String], bindings: [String: MustacheSchema] = [:])
    throws(MustacheError)
  {
    var parsed: [String: Template] = [:]
    for name in sources.keys.sorted() {
      parsed[name] = try Template(sources[name] ?? "", name: name, file: name, schema: bindings[name])
    }
    try TemplateLibrary.check(parsed, bindings: bindings, files: [:], directory: nil)
    templates = parsed
    programs = parsed.mapValues(\.program)
  }

  /// Every referenced template exists, every binding names a template, and a bound template calls
  /// only templates bound to its schema.
  private static func check(
    _ templates: [String: Template], bindings: [String: MustacheSchema], files: [String: String],
    directory: String?
  ) throws(MustacheError) {
    for name in bindings.keys.sorted() where templates[name] == nil {
      throw MustacheError(
        file: directory.map { "\($0)/\(name)" } ?? name, line: 0, column: 0,
        message: "no template named '\(name)' to bind to \(bindings[name]?.name ?? "")")
    }
    for name in templates.keys.sorted() {
      guard let template = templates[name] else { continue }
      for reference in template.references {
        let problem: String
        if templates[reference.name] == nil {
          problem = "no template named '\(reference.name)'"
        } else if let schema = bindings[name], bindings[reference.name] !== schema {
          problem = "'\(reference.name)' is not bound to \(schema.name) as '\(name)' is"
        } else {
          continue
        }
        throw MustacheError(
          file: files[name] ?? name, line: reference.line, column: reference.column, message: problem)
      }
    }
  }

  /// The template called `named`, if any.
  public func template(named: String) -> Template? {
    templates[named]
  }

  /// The operations of the template called `named`, for partial and parent calls.
  func program(named name: String) -> Program? {
    programs[name]
  }

  /// Renders the template `name` into `buffer`. Throws for an unknown name, or when rendering hit a
  /// depth or size limit (runaway recursion).
  public func render(_ name: String, _ value: MustacheValue, into buffer: inout [UInt8]) throws(MustacheError)
  {
    guard let template = templates[name] else {
      throw MustacheError(file: name, line: 0, column: 0, message: "no template named '\(name)'")
    }
    guard template.render(value, into: &buffer, partials: self, limits: .standard) else {
      throw MustacheError(
        file: name, line: 0, column: 0, message: "rendering stopped at a depth or size limit (recursion?)")
    }
  }

  /// Renders the template `name` to a string.
  public func render(_ name: String, _ value: MustacheValue) throws(MustacheError) -> String {
    var buffer: [UInt8] = []
    try render(name, value, into: &buffer)
    return String(decoding: buffer, as: UTF8.self)
  }
}
