import Mustache

/// The CSS class that gives a card's language dot its colour: GitHub's colour for common languages,
/// and for any other one of eight fallback colours chosen by a stable hash of the name.
enum LanguageStyle {
  /// Fallback colours in the stylesheet (`lang-other-0` … `lang-other-7`).
  static let fallbackCount = 8

  /// Languages with a colour of their own, and their classes.
  private static let known: [(language: StaticString, className: StaticString)] = [
    ("JavaScript", "lang-javascript"),
    ("Python", "lang-python"),
    ("TypeScript", "lang-typescript"),
    ("Java", "lang-java"),
    ("Go", "lang-go"),
    ("Rust", "lang-rust"),
    ("C++", "lang-cpp"),
    ("C", "lang-c"),
    ("C#", "lang-csharp"),
    ("Ruby", "lang-ruby"),
    ("PHP", "lang-php"),
    ("Swift", "lang-swift"),
    ("Kotlin", "lang-kotlin"),
    ("Shell", "lang-shell"),
    ("HTML", "lang-html"),
    ("CSS", "lang-css"),
    ("Jupyter Notebook", "lang-jupyter"),
    ("Dart", "lang-dart"),
    ("Scala", "lang-scala"),
    ("Haskell", "lang-haskell"),
    ("Elixir", "lang-elixir"),
    ("Lua", "lang-lua"),
    ("Zig", "lang-zig"),
    ("Objective-C", "lang-objc"),
    ("Vue", "lang-vue"),
    ("Assembly", "lang-assembly"),
  ]

  /// `lang-swift` for a known language, `lang-other-N` otherwise.
  static func className(_ language: String) -> String {
    TextBuilder.make(capacity: maxClassLength) { write(utf8: language.utf8.span, into: &$0) }
  }

  /// `className` of a language's UTF-8, appended to a render's output without making a `String`.
  static func write(utf8 language: Span<UInt8>, to output: inout MustacheOutput) {
    TextBuilder.write(capacity: maxClassLength, to: &output) { write(utf8: language, into: &$0) }
  }

  /// The longest class name: the known ones, and `lang-other-N`.
  private static let maxClassLength = known.reduce(12) { max($0, $1.className.utf8CodeUnitCount) }

  /// The known languages' names as bytes, in the order of `known`.
  private static let knownNames = known.map { Array("\($0.language)".utf8) }

  private static func write(utf8 language: Span<UInt8>, into out: inout TextBuilder) {
    for (entry, name) in zip(known, knownNames) where name.count == language.count {
      if name.indices.allSatisfy({ name[$0] == language[$0] }) {
        out.ascii(entry.className)
        return
      }
    }
    // FNV-1a (32-bit): the same language gets the same colour on every card and every run.
    var hash: UInt32 = 0x811c_9dc5
    for i in language.indices {
      hash ^= UInt32(language[i])
      hash &*= 0x0100_0193
    }
    out.ascii("lang-other-")
    out.decimal(Int(hash % UInt32(fallbackCount)))
  }
}
