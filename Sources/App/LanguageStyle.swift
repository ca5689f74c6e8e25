/// The CSS class that gives a card's language dot its colour: GitHub's colour for common languages,
/// and for any other one of eight fallback colours chosen by a stable hash of the name.
enum LanguageStyle {
  /// Fallback colours in the stylesheet (`lang-other-0` … `lang-other-7`).
  static let fallbackCount = 8

  /// `lang-swift` for a known language, `lang-other-N` otherwise.
  static func className(_ language: String) -> String {
    switch language {
    case "JavaScript": return "lang-javascript"
    case "Python": return "lang-python"
    case "TypeScript": return "lang-typescript"
    case "Java": return "lang-java"
    case "Go": return "lang-go"
    case "Rust": return "lang-rust"
    case "C++": return "lang-cpp"
    case "C": return "lang-c"
    case "C#": return "lang-csharp"
    case "Ruby": return "lang-ruby"
    case "PHP": return "lang-php"
    case "Swift": return "lang-swift"
    case "Kotlin": return "lang-kotlin"
    case "Shell": return "lang-shell"
    case "HTML": return "lang-html"
    case "CSS": return "lang-css"
    case "Jupyter Notebook": return "lang-jupyter"
    case "Dart": return "lang-dart"
    case "Scala": return "lang-scala"
    case "Haskell": return "lang-haskell"
    case "Elixir": return "lang-elixir"
    case "Lua": return "lang-lua"
    case "Zig": return "lang-zig"
    case "Objective-C": return "lang-objc"
    case "Vue": return "lang-vue"
    case "Assembly": return "lang-assembly"
    default:
      // FNV-1a: the same language gets the same colour on every card and every run.
      var hash: UInt32 = 0x811c_9dc5
      for byte in language.utf8 {
        hash ^= UInt32(byte)
        hash &*= 0x0100_0193
      }
      return "lang-other-" + String(Int(hash % UInt32(fallbackCount)))
    }
  }
}
