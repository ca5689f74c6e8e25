/// A set of named templates, all parsed and cross-checked when the library is created.
///
/// ```swift
/// let library = try TemplateLibrary(templates: [
///   "page": "<ul>{{#items}}{{> item}}{{/items}}</ul>", "item": "<li>{{name}}</li>",
/// ])
/// let html = try library.render("page", .object(["items": .list([.object(["name": .string("a<b")])])]))
/// // html == "<ul><li>a&lt;b</li></ul>"
/// ```
public struct TemplateLibrary: Sendable {
  private let templates: [String: Template]
  /// Each template's operations by name: a partial call fetches one reference, not a whole `Template`.
  private let programs: [String: Program]
  /// The identity the programs were linked by (see `Program.link`): it lives as long as they do.
  private let linker = Linker()

  /// An object whose identity marks the programs one library linked.
  private final class Linker: Sendable {}

  /// The identity a render compares with a program's `linkerID`.
  var linkerID: ObjectIdentifier { ObjectIdentifier(linker) }

  /// The names of all templates, sorted.
  public var names: [String] { templates.keys.sorted() }

  /// Loads every `*.<extension>` file below `directory`, naming each by its relative path without the
  /// extension (`partials/card`). Syntax errors and references to missing partials or parents throw.
  ///
  /// `bindings` binds templates by name to the schema of the rows they render (see `MustacheRows`):
  /// a name that is not a field of the schema, a bound template that is missing, or a bound template
  /// calling one not bound to the same schema throws, with file, line and column.
  ///
  /// `vocabulary`, when given, checks every unbound template: it must return one for the template's
  /// name, and every name the template reads must be one of its names (a dictionary view model's keys,
  /// nested ones too), or loading throws with file, line and column. Such templates still look names
  /// up when rendering.
  ///
  /// `trimWhitespace` cuts every run of whitespace in the templates' text that holds a line break to
  /// that one line break, and drops the indentation of standalone partial calls: what HTML renders
  /// is unchanged (a run shows as one space), and text inside `<pre>` and `<textarea>` is kept.
  /// Templates stay indented for people while the output carries no indentation.
  public init(
    directory: String, extension: String = "mustache", bindings: [String: MustacheSchema] = [:],
    vocabulary vocabularies: ((String) -> MustacheSchema?)? = nil, trimWhitespace: Bool = false
  ) throws(MustacheError) {
    let files = try TemplateFiles.list(root: directory, extension: `extension`)
    var parsed: [String: Template] = [:]
    var paths: [String: String] = [:]
    for file in files {
      let source = try TemplateFiles.read(file.path)
      let vocabulary = try TemplateLibrary.vocabulary(
        file.name, file: file.path, bindings: bindings, vocabularies: vocabularies)
      parsed[file.name] = try Template(
        source, name: file.name, file: file.path, schema: bindings[file.name], vocabulary: vocabulary,
        trimWhitespace: trimWhitespace)
      paths[file.name] = file.path
    }
    try TemplateLibrary.check(parsed, bindings: bindings, files: paths, directory: directory)
    templates = parsed
    programs = parsed.mapValues(\.program)
    link()
  }

  /// Parses each source under its key as the template's name; `bindings`, `vocabulary` and
  /// `trimWhitespace` as for a folder.
  public init(
    templates sources: [String: String], bindings: [String: MustacheSchema] = [:],
    vocabulary vocabularies: ((String) -> MustacheSchema?)? = nil, trimWhitespace: Bool = false
  ) throws(MustacheError) {
    var parsed: [String: Template] = [:]
    for name in sources.keys.sorted() {
      let vocabulary = try TemplateLibrary.vocabulary(
        name, file: name, bindings: bindings, vocabularies: vocabularies)
      parsed[name] = try Template(
        sources[name] ?? "", name: name, file: name, schema: bindings[name], vocabulary: vocabulary,
        trimWhitespace: trimWhitespace)
    }
    try TemplateLibrary.check(parsed, bindings: bindings, files: [:], directory: nil)
    templates = parsed
    programs = parsed.mapValues(\.program)
    link()
  }

  /// Resolves every program's calls to this library's programs: they are new, not yet shared.
  private func link() {
    for program in programs.values { program.link(programs, by: linker) }
  }

  /// The vocabulary template `name` is checked against: nil when it is bound or nothing is checked;
  /// throws when `vocabularies` is given and has none for an unbound template.
  private static func vocabulary(
    _ name: String, file: String, bindings: [String: MustacheSchema],
    vocabularies: ((String) -> MustacheSchema?)?
  ) throws(MustacheError) -> MustacheSchema? {
    guard let vocabularies, bindings[name] == nil else { return nil }
    guard let vocabulary = vocabularies(name) else {
      throw MustacheError(
        kind: .unbound, file: file, line: 0, column: 0,
        message: "template '\(name)' is neither bound to a schema nor given a vocabulary")
    }
    return vocabulary
  }

  /// Every referenced template exists, every binding names a template, and a bound template calls
  /// only templates bound to its schema.
  private static func check(
    _ templates: [String: Template], bindings: [String: MustacheSchema], files: [String: String],
    directory: String?
  ) throws(MustacheError) {
    for name in bindings.keys.sorted() where templates[name] == nil {
      throw MustacheError(
        kind: .missingTemplate, file: directory.map { "\($0)/\(name)" } ?? name, line: 0, column: 0,
        message: "no template named '\(name)' to bind to \(bindings[name]?.name ?? "")")
    }
    for name in templates.keys.sorted() {
      guard let template = templates[name] else { continue }
      for reference in template.references {
        let problem: (MustacheError.Kind, String)
        if templates[reference.name] == nil {
          problem = (.missingTemplate, "no template named '\(reference.name)'")
        } else if let schema = bindings[name], bindings[reference.name] !== schema {
          problem = (.bindingMismatch, "'\(reference.name)' is not bound to \(schema.name) as '\(name)' is")
        } else {
          continue
        }
        throw MustacheError(
          kind: problem.0, file: files[name] ?? name, line: reference.line, column: reference.column,
          message: problem.1)
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
      throw MustacheError(
        kind: .missingTemplate, file: name, line: 0, column: 0, message: "no template named '\(name)'")
    }
    guard template.render(value, into: &buffer, partials: self, limits: .standard) else {
      throw MustacheError(
        kind: .limitExceeded, file: name, line: 0, column: 0,
        message: "rendering stopped at a depth or size limit (recursion?)")
    }
  }

  /// Renders the template `name` to a string.
  public func render(_ name: String, _ value: MustacheValue) throws(MustacheError) -> String {
    var buffer: [UInt8] = []
    try render(name, value, into: &buffer)
    return String(decoding: buffer, as: UTF8.self)
  }
}
