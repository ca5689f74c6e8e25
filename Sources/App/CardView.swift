import GitHub
import Mustache
import Paging

/// One repository card (`partials/card`), answering the template's names from the batch's item in
/// place: only the fields the template reads are computed.
final class CardView: MustacheObject {
  let batch: CardBatch
  let index: Int
  /// The batch's items, held by the card so that reading `items[index]` in a lookup retains neither
  /// the array nor a copy of the repository (whose strings the response cache shares across threads).
  private let items: [PositionedItem<Repository>]
  /// `owner` and `bar`, made with the card so a lookup through them allocates nothing.
  private let owner: OwnerView
  private let bar: BarView

  init(batch: CardBatch, index: Int) {
    self.batch = batch
    self.index = index
    items = batch.items
    owner = OwnerView(
      login: items[index].item.owner?.login ?? String(items[index].item.fullName.prefix { $0 != "/" }),
      id: items[index].item.owner?.id ?? 0)
    let stars = items[index].item.stargazersCount
    bar = BarView(percent: Self.barPercent(stars: stars, largest: batch.largestStars), band: Self.band(stars))
  }

  /// Most topics shown on one card (they share one line).
  static let maxTopics = 5

  /// The names `partials/card` reads.
  enum Field {
    case id, position, setsize, prefetch, name, fullName, htmlURL, description, language, starsText, stars
    case forksText, issuesText, license, archived, fork, topics, updatedISO, updatedText, bar, owner
    case stargazers

    /// The field called `key`. A switch of small-string compares, in template order: a shared
    /// dictionary would be retained by every lookup on every thread.
    init?(_ key: String) {
      switch key {
      case "id": self = .id
      case "position": self = .position
      case "setsize": self = .setsize
      case "prefetch": self = .prefetch
      case "owner": self = .owner
      case "htmlURL": self = .htmlURL
      case "name": self = .name
      case "updatedISO": self = .updatedISO
      case "updatedText": self = .updatedText
      case "description": self = .description
      case "language": self = .language
      case "forksText": self = .forksText
      case "issuesText": self = .issuesText
      case "license": self = .license
      case "archived": self = .archived
      case "fork": self = .fork
      case "topics": self = .topics
      case "bar": self = .bar
      case "stars": self = .stars
      case "starsText": self = .starsText
      case "stargazers": self = .stargazers
      case "fullName": self = .fullName
      default: return nil
      }
    }
  }

  func value(for key: String) -> MustacheValue? {
    guard let field = Field(key) else { return nil }
    return value(of: field)
  }

  /// The field's value; nil for an absent optional field (the template shows its fallback).
  func value(of field: Field) -> MustacheValue? {
    switch field {
    case .id: return .int(items[index].item.id)
    case .position: return .int(items[index].position)
    case .setsize: return .int(batch.setsize)
    case .prefetch: return .bool(batch.trigger == index)
    case .name: return .string(items[index].item.name)
    case .fullName: return .string(items[index].item.fullName)
    case .htmlURL:
      return .string(Self.safeLink(items[index].item.htmlURL, fallback: items[index].item.fullName))
    case .description: return items[index].item.description.flatMap { $0.isEmpty ? nil : .string($0) }
    case .language: return items[index].item.language.map { .string($0) }
    case .starsText: return .string(Formatting.compact(items[index].item.stargazersCount))
    case .stars: return .int(items[index].item.stargazersCount)
    case .forksText: return .string(Formatting.compact(items[index].item.forksCount))
    case .issuesText: return .string(Formatting.compact(items[index].item.openIssuesCount))
    case .license: return items[index].item.license.map { .string($0) }
    case .archived: return .bool(items[index].item.archived)
    case .fork: return .bool(items[index].item.fork)
    case .topics:
      return items[index].item.topics.isEmpty
        ? nil : .list(items[index].item.topics.prefix(Self.maxTopics).map { .string($0) })
    case .updatedISO: return .string(items[index].item.pushedAt ?? items[index].item.updatedAt)
    case .updatedText: return .string(updatedText)
    case .bar: return .dynamic(bar)
    case .owner: return .dynamic(owner)
    case .stargazers:
      let name = items[index].item.name
      let capacity = 18 + TextBuilder.encodedCapacity(owner.login) + TextBuilder.encodedCapacity(name)
      return .string(
        TextBuilder.make(capacity: capacity) {
          $0.ascii("/fragments/stars/")
          $0.encode(owner.login)
          $0.byte(UInt8(ascii: "/"))
          $0.encode(name)
        })
    }
  }

  /// "3 days ago": the last push (or update) relative to now.
  var updatedText: String {
    Formatting.unixSeconds(iso: items[index].item.pushedAt ?? items[index].item.updatedAt).map {
      Formatting.relative($0, now: batch.now)
    } ?? ""
  }

  /// Stars relative to the largest count, 0…100, at least 1 when there are any stars. Any `Int`s are
  /// accepted; nothing overflows.
  static func barPercent(stars: Int, largest: Int) -> Int {
    guard stars > 0 else { return 0 }
    let scale = max(largest, stars)
    let (scaled, overflow) = stars.multipliedReportingOverflow(by: 100)
    let percent = overflow ? stars / max(1, scale / 100) : scaled / scale
    return min(100, max(1, percent))
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

  /// Only http(s) links leave the page; anything else points at the repository on github.com.
  static func safeLink(_ url: String, fallback fullName: String) -> String {
    if url.hasPrefix("https://") || url.hasPrefix("http://") { return url }
    return "https://github.com/"
      + fullName.split(separator: "/").map { URLText.encode(String($0)) }
      .joined(separator: "/")
  }
}
