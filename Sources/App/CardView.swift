import GitHub
import Mustache

/// One repository card (`partials/card`).
struct CardView: MustacheRepresentable {
  let repository: Repository
  /// 1-based position in the list.
  let position: Int
  /// The list size capped at 1000.
  let setsize: Int
  /// Whether this card carries the prefetch trigger.
  let prefetch: Bool
  /// The largest star count in the list, for the bar's scale.
  let largestStars: Int
  /// Unix seconds, for "updated 3 days ago".
  let now: Int

  /// Most topics shown on one card (they share one line).
  static let maxTopics = 5

  var mustacheValue: MustacheValue {
    mustacheValue(
      position: .int(position), setsize: .int(setsize), percent: .int(barPercent),
      updated: .string(updatedText))
  }

  /// "3 days ago": the last push (or update) relative to now.
  var updatedText: String {
    Formatting.unixSeconds(iso: repository.pushedAt ?? repository.updatedAt).map {
      Formatting.relative($0, now: now)
    } ?? ""
  }

  /// The card with the list- and clock-dependent fields given (`CardRenderer` passes sentinels).
  func mustacheValue(
    position: MustacheValue, setsize: MustacheValue, percent: MustacheValue, updated: MustacheValue
  )
    -> MustacheValue
  {
    let repo = repository
    let login = repo.owner?.login ?? String(repo.fullName.prefix { $0 != "/" })
    var owner: [String: MustacheValue] = [
      "login": .string(login),
      "page": .string("/owners/" + URLText.encode(login)),
      "initials": .string(Self.initials(login)),
    ]
    if let id = repo.owner?.id, id > 0 {
      owner["avatar"] = .string("/avatars/\(id)?s=80")
      owner["avatar2x"] = .string("/avatars/\(id)?s=160")
    }
    var value: [String: MustacheValue] = [
      "id": .int(repo.id),
      "position": position,
      "setsize": setsize,
      "prefetch": .bool(prefetch),
      "name": .string(repo.name),
      "fullName": .string(repo.fullName),
      "htmlURL": .string(Self.safeLink(repo.htmlURL, fallback: repo.fullName)),
      "starsText": .string(Formatting.compact(repo.stargazersCount)),
      "stars": .int(repo.stargazersCount),
      "forksText": .string(Formatting.compact(repo.forksCount)),
      "issuesText": .string(Formatting.compact(repo.openIssuesCount)),
      "archived": .bool(repo.archived),
      "fork": .bool(repo.fork),
      "updatedISO": .string(repo.pushedAt ?? repo.updatedAt),
      "updatedText": updated,
      "bar": .object(["percent": percent, "band": .int(Self.band(repo.stargazersCount))]),
      "owner": .object(owner),
      "stargazers": .string(
        "/fragments/stars/" + URLText.encode(login) + "/" + URLText.encode(repo.name)),
    ]
    if let description = repo.description, !description.isEmpty {
      value["description"] = .string(description)
    }
    if let language = repo.language { value["language"] = .string(language) }
    if let license = repo.license { value["license"] = .string(license) }
    if !repo.topics.isEmpty {
      value["topics"] = .list(repo.topics.prefix(Self.maxTopics).map { .string($0) })
    }
    return .object(value)
  }

  /// Stars relative to the largest count, 0…100, at least 1 when there are any stars.
  var barPercent: Int {
    let stars = repository.stargazersCount
    guard stars > 0 else { return 0 }
    let largest = max(largestStars, stars)
    return min(100, max(1, stars * 100 / largest))
  }

  /// The colour band by absolute stars.
  static func band(_ stars: Int) -> Int {
    switch stars {
    case ..<100: return 1
    case ..<1000: return 2
    case ..<10_000: return 3
    case ..<50_000: return 4
    default: return 5
    }
  }

  /// One or two capital letters from a login: `octo-cat` → `OC`, `swift` → `S`.
  static func initials(_ login: String) -> String {
    let parts = login.split(whereSeparator: { $0 == "-" || $0 == "_" || $0 == "." })
    let letters = parts.prefix(2).compactMap(\.first)
    let text = String(letters.isEmpty ? Array(login.prefix(1)) : letters).uppercased()
    return text.isEmpty ? "?" : text
  }

  /// Only http(s) links leave the page; anything else points at the repository on github.com.
  static func safeLink(_ url: String, fallback fullName: String) -> String {
    if url.hasPrefix("https://") || url.hasPrefix("http://") { return url }
    return "https://github.com/"
      + fullName.split(separator: "/").map { URLText.encode(String($0)) }
      .joined(separator: "/")
  }
}
