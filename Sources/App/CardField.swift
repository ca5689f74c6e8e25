import Mustache

/// The names `partials/card` reads, numbered: the template is bound to them when the library loads,
/// so a card field is found by number, and a name the template reads that is not here stops startup.
enum CardField: Int, CaseIterable {
  case id, position, setsize, prefetch, name, fullName, htmlURL, description, language, starsText, stars
  case forksText, issuesText, license, archived, fork, topics, updatedISO, updatedText
  case barPercent, barBand, ownerLogin, ownerPage, ownerInitials, ownerAvatar, ownerAvatar2x, stargazers
  case forksLabel, issuesLabel, languageClass

  /// The name as templates write it.
  var name: String {
    switch self {
    case .barPercent: return "bar.percent"
    case .barBand: return "bar.band"
    case .ownerLogin: return "owner.login"
    case .ownerPage: return "owner.page"
    case .ownerInitials: return "owner.initials"
    case .ownerAvatar: return "owner.avatar"
    case .ownerAvatar2x: return "owner.avatar2x"
    default: return String(describing: self)
    }
  }

  /// All fields, numbered by their raw values.
  static let schema = MustacheSchema("card", names: allCases.map(\.name))
}
