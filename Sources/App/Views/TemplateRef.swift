import Mustache

/// A template a handler renders, looked up by name when the handler is built: the files in the
/// templates folder define what exists, and a handler that names one that does not stops startup
/// (`TemplateRef.Missing`) instead of failing on its first request.
///
/// ```swift
/// let cards = try TemplateRef("partials/cards", in: library, for: "FragmentHandler")
/// try cards.render(view.mustacheValue, into: &body)
/// ```
struct TemplateRef: Sendable {
  /// A handler names a template that has no file.
  struct Missing: Error, CustomStringConvertible {
    /// The template's name (its path below the folder without `.mustache`).
    let name: String
    /// The handler that renders it.
    let user: String

    var description: String { "\(name).mustache is missing (rendered by \(user))" }
  }

  /// The template's name in the library.
  let name: String
  private let library: TemplateLibrary

  /// The template `name` of `library`, rendered by `user`; throws when there is none.
  init(_ name: String, in library: TemplateLibrary, for user: String) throws(Missing) {
    guard library.template(named: name) != nil else { throw Missing(name: name, user: user) }
    self.name = name
    self.library = library
  }

  /// Renders the template with `value` into `buffer`; throws only at a render limit (recursion).
  func render(_ value: MustacheValue, into buffer: inout [UInt8]) throws(MustacheError) {
    try library.render(name, value, into: &buffer)
  }
}
