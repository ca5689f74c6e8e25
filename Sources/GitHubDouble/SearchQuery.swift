/// A parsed search `q`: free-text terms plus the qualifiers the double understands.
struct SearchQuery: Equatable {
  /// Where terms are matched.
  struct Fields: OptionSet, Equatable {
    let rawValue: Int
    static let name = Fields(rawValue: 1)
    static let description = Fields(rawValue: 2)
    static let topics = Fields(rawValue: 4)
    static let all: Fields = [.name, .description, .topics]
  }

  enum ForkMode: Equatable { case exclude, include, only }

  /// Lowercased terms; all must match.
  var terms: [String] = []
  var fields: Fields = .all
  /// Lowercased languages; any may match.
  var languages: [String] = []
  var stars: QualifierRange?
  var forks: QualifierRange?
  /// Open issues labelled "help wanted" (`help-wanted-issues:`).
  var helpWanted: QualifierRange?
  /// Size in KB.
  var size: QualifierRange?
  /// Unix-second bounds on `created_at` and `pushed_at`.
  var created: QualifierRange?
  var pushed: QualifierRange?
  /// Lowercased owner logins from `user:` (any owner) and `org:` (organisations only).
  var users: [String] = []
  var orgs: [String] = []
  /// Lowercased topics; all must be present.
  var topics: [String] = []
  var fork: ForkMode = .exclude
  var archived: Bool?

  /// Parses `q`. Unknown or malformed qualifiers are kept as plain terms, as GitHub does.
  init(_ q: String) {
    for token in SearchQuery.tokenize(q) {
      guard !token.quoted, let colon = token.text.firstIndex(of: ":") else {
        terms.append(token.text.lowercased())
        continue
      }
      let name = token.text[..<colon].lowercased()
      let value = SearchQuery.unquote(token.text[token.text.index(after: colon)...])
      if value.isEmpty {
        terms.append(token.text.lowercased())
        continue
      }
      switch name {
      case "language": languages.append(value.lowercased().replacing(" ", with: "-"))
      case "user": users.append(value.lowercased())
      case "org": orgs.append(value.lowercased())
      case "topic": topics.append(value.lowercased())
      case "stars", "forks", "size", "help-wanted-issues":
        guard let r = QualifierRange(number: value[...]) else {
          terms.append(token.text.lowercased())
          continue
        }
        switch name {
        case "stars": stars = r
        case "forks": forks = r
        case "size": size = r
        default: helpWanted = r
        }
      case "created", "pushed":
        guard let r = QualifierRange(date: value[...]) else {
          terms.append(token.text.lowercased())
          continue
        }
        if name == "created" { created = r } else { pushed = r }
      case "fork":
        switch value.lowercased() {
        case "true": fork = .include
        case "only": fork = .only
        case "false": fork = .exclude
        default: terms.append(token.text.lowercased())
        }
      case "archived":
        archived = value.lowercased() == "true"
      case "is":
        if value.lowercased() != "public" { terms.append(token.text.lowercased()) }
      case "in":
        var f: Fields = []
        for part in value.lowercased().split(separator: ",") {
          switch part {
          case "name": f.insert(.name)
          // The double has no READMEs; its descriptions stand in for them.
          case "description", "readme": f.insert(.description)
          case "topics", "topic": f.insert(.topics)
          default: break
          }
        }
        if !f.isEmpty { fields = f }
      default: terms.append(token.text.lowercased())
      }
    }
  }

  /// The query without its ranges on stars, forks, help-wanted issues and creation time (which never
  /// change the order of what matches).
  var withoutRanges: SearchQuery {
    var query = self
    query.stars = nil
    query.forks = nil
    query.helpWanted = nil
    query.created = nil
    return query
  }

  private struct Token {
    var text: String
    var quoted: Bool
  }

  /// Splits on whitespace, keeping `"quoted phrases"` together (also after `name:`).
  private static func tokenize(_ q: String) -> [Token] {
    var tokens: [Token] = []
    var current = ""
    var inQuotes = false
    for ch in q {
      if ch == "\"" {
        inQuotes.toggle()
        current.append(ch)
      } else if ch.isWhitespace && !inQuotes {
        if !current.isEmpty { tokens.append(finish(current)) }
        current = ""
      } else {
        current.append(ch)
      }
    }
    if !current.isEmpty { tokens.append(finish(current)) }
    return tokens.filter { !$0.text.isEmpty }
  }

  private static func finish(_ raw: String) -> Token {
    if raw.hasPrefix("\"") {
      return Token(text: unquote(raw[...]), quoted: true)
    }
    return Token(text: raw, quoted: false)
  }

  private static func unquote(_ s: Substring) -> String {
    var t = s
    if t.hasPrefix("\"") { t = t.dropFirst() }
    if t.hasSuffix("\"") { t = t.dropLast() }
    return String(t)
  }
}
