/// The CSS class that gives a card's language dot its colour: GitHub's colour for common languages,
/// and for any other one of eight fallback colours chosen by a stable hash of the name.
enum LanguageStyle {
  /// Fallback colours in the stylesheet (`lang-other-0` … `lang-other-7`).
  static let fallbackCount = 8

  /// The languages with a colour of their own. One hashed lookup per card costs less than a `switch`
  /// over the names, which compares them one after another.
  private static let known: [String: String] = [
    "JavaScript": "lang-javascript",
    "Python": "lang-python",
    "TypeScript": "lang-typescript",
    "Java": "lang-java",
    "Go": "lang-go",
    "Rust": "lang-rust",
    "C++": "lang-cpp",
    "C": "lang-c",
    "C#": "lang-csharp",
    "Ruby": "lang-ruby",
    "PHP": "lang-php",
    "Swift": "lang-swift",
    "Kotlin": "lang-kotlin",
    "Shell": "lang-shell",
    "HTML": "lang-html",
    "CSS": "lang-css",
    "Jupyter Notebook": "lang-jupyter",
    "Dart": "lang-dart",
    "Scala": "lang-scala",
    "Haskell": "lang-haskell",
    "Elixir": "lang-elixir",
    "Lua": "lang-lua",
    "Zig": "lang-zig",
    "Objective-C": "lang-objc",
    "Vue": "lang-vue",
    "Assembly": "lang-assembly",
  ]

  /// `lang-swift` for a known language, `lang-other-N` otherwise.
  static func className(_ language: String) -> String {
    if let known = known[language] { return known }
    // FNV-1a: the same language gets the same colour on every card and every run.
    var hash: UInt32 = 0x811c_9dc5
    for byte in language.utf8 {
      hash ^= UInt32(byte)
      hash &*= 0x0100_0193
    }
    return "lang-other-" + String(Int(hash % UInt32(fallbackCount)))
  }
}
