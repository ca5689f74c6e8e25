import GitHub
import HTTP
import Mustache
import Paging

/// The cards of one batch, as rows of `partials/card` (bound to `CardField.schema`). Fields are
/// written from the batch's items in place: nothing is allocated per card, and no repository (whose
/// strings the response cache shares across threads) is copied or retained to render.
final class CardBatch: MustacheRows {
  let items: [PositionedItem<Repository>]
  /// The list size capped at 1000 (`aria-setsize`).
  let setsize: Int
  /// The index of the card that carries the prefetch trigger.
  let trigger: Int?
  /// The largest star count in the list, for the bars' scale.
  let largestStars: Int
  /// Unix seconds, for "updated 3 days ago".
  let now: Int
  /// Each card's owner login (the full name's part before `/` when GitHub sent no owner) and owner id
  /// (0 without an owner), read once here: each read of an item's optional owner copies all of it.
  private let logins: [String]
  private let ownerIDs: [Int]

  /// Most topics shown on one card (they share one line).
  static let maxTopics = 5

  init(items: [PositionedItem<Repository>], setsize: Int, trigger: Int?, largestStars: Int, now: Int) {
    self.items = items
    self.setsize = setsize
    self.trigger = trigger
    self.largestStars = largestStars
    self.now = now
    var logins: [String] = []
    var ownerIDs: [Int] = []
    logins.reserveCapacity(items.count)
    ownerIDs.reserveCapacity(items.count)
    for index in items.indices {
      // Reading the two fields through the chain does not copy (and retain) the whole owner.
      if let login = items[index].item.owner?.login {
        logins.append(login)
        ownerIDs.append(items[index].item.owner?.id ?? 0)
      } else {
        logins.append(String(items[index].item.fullName.prefix { $0 != "/" }))
        ownerIDs.append(0)
      }
    }
    self.logins = logins
    self.ownerIDs = ownerIDs
  }

  var schema: MustacheSchema { CardField.schema }

  var count: Int { items.count }

  func count(of field: Int, row: Int) -> Int {
    guard let field = CardField(rawValue: field), items.indices.contains(row) else { return 0 }
    return withItem(row) { count(of: field, $0, row: row) }
  }

  func write(_ field: Int, row: Int, element: Int, to output: inout MustacheOutput) {
    guard let field = CardField(rawValue: field), items.indices.contains(row) else { return }
    withItem(row) { write(field, $0, row: row, element: element, to: &output) }
  }

  /// A pointer to item `row` (a valid index) for `body`. Fields are read through it where they are
  /// used: reading a whole item (or passing it on) would copy it, a retain of each of its strings.
  @inline(__always)
  private func withItem<R>(_ row: Int, _ body: (Item) -> R) -> R {
    // The array is a constant of this object, so its storage stays alive and unchanged during `body`.
    items.withUnsafeBufferPointer { body($0.baseAddress.unsafelyUnwrapped + row) }
  }

  private typealias Item = UnsafePointer<PositionedItem<Repository>>

  private func count(of field: CardField, _ p: Item, row: Int) -> Int {
    switch field {
    case .prefetch: return trigger == row ? 1 : 0
    case .description: return p.pointee.item.description?.isEmpty == false ? 1 : 0
    case .language, .languageClass: return p.pointee.item.language?.isEmpty == false ? 1 : 0
    case .license: return p.pointee.item.license?.isEmpty == false ? 1 : 0
    case .archived: return p.pointee.item.archived ? 1 : 0
    case .fork: return p.pointee.item.fork ? 1 : 0
    case .topics: return min(p.pointee.item.topics.count, Self.maxTopics)
    case .ownerAvatar, .ownerAvatar2x: return ownerIDs[row] > 0 ? 1 : 0
    case .name: return p.pointee.item.name.isEmpty ? 0 : 1
    case .fullName: return p.pointee.item.fullName.isEmpty ? 0 : 1
    case .ownerLogin, .ownerInitials, .ownerPage, .updatedText:
      // Always some text (initials fall back to "?", the page to "/owners/").
      return 1
    case .id, .position, .setsize, .starsText, .stars, .forksText, .issuesText, .updatedISO, .barPercent,
      .barBand, .htmlURL, .stargazers, .forksLabel, .issuesLabel:
      return 1
    }
  }

  private func write(_ field: CardField, _ p: Item, row: Int, element: Int, to output: inout MustacheOutput) {
    switch field {
    case .id: output.append(p.pointee.item.id)
    case .position: output.append(p.pointee.position)
    case .setsize: output.append(setsize)
    case .prefetch: output.append(literal: trigger == row ? "true" : "false")
    case .name: output.append(p.pointee.item.name)
    case .fullName: output.append(p.pointee.item.fullName)
    case .htmlURL:
      if p.pointee.item.htmlURL.hasPrefix("https://") || p.pointee.item.htmlURL.hasPrefix("http://") {
        output.append(p.pointee.item.htmlURL)
      } else {
        output.append(CardText.safeLink(p.pointee.item.htmlURL, fallback: p.pointee.item.fullName))
      }
    case .description: if let text = p.pointee.item.description { output.append(text) }
    case .language: if let text = p.pointee.item.language { output.append(text) }
    case .license: if let text = p.pointee.item.license { output.append(text) }
    case .starsText: compact(p.pointee.item.stargazersCount, to: &output)
    case .stars: output.append(p.pointee.item.stargazersCount)
    case .forksText: compact(p.pointee.item.forksCount, to: &output)
    case .issuesText: compact(p.pointee.item.openIssuesCount, to: &output)
    case .forksLabel: counted(p.pointee.item.forksCount, "fork", to: &output)
    case .issuesLabel: counted(p.pointee.item.openIssuesCount, "issue", to: &output)
    case .languageClass:
      if let language = p.pointee.item.language { output.append(LanguageStyle.className(language)) }
    case .archived: output.append(literal: p.pointee.item.archived ? "true" : "false")
    case .fork: output.append(literal: p.pointee.item.fork ? "true" : "false")
    case .topics:
      if element < min(p.pointee.item.topics.count, Self.maxTopics) {
        output.append(p.pointee.item.topics[element])
      }
    case .updatedISO: output.append(p.pointee.item.pushedAt ?? p.pointee.item.updatedAt)
    case .updatedText:
      if let unix = Formatting.unixSeconds(iso: p.pointee.item.pushedAt ?? p.pointee.item.updatedAt) {
        TextBuilder.write(capacity: Formatting.relativeCapacity, to: &output) {
          Formatting.relative(unix, now: now, into: &$0)
        }
      }
    case .barPercent:
      output.append(CardText.barPercent(stars: p.pointee.item.stargazersCount, largest: largestStars))
    case .barBand: output.append(CardText.band(p.pointee.item.stargazersCount))
    case .ownerLogin: output.append(logins[row])
    case .ownerPage:
      output.append(literal: "/owners/")
      writeEncoded(logins[row], to: &output)
    case .ownerInitials:
      CardText.writeInitials(logins[row], to: &output)
    case .ownerAvatar, .ownerAvatar2x:
      let id = ownerIDs[row]
      guard id > 0 else { return }
      output.append(literal: "/avatars/")
      output.append(id)
      output.append(literal: field == .ownerAvatar ? "?s=80" : "?s=160")
    case .stargazers:
      output.append(literal: "/fragments/stars/")
      writeEncoded(logins[row], to: &output)
      output.append(byte: UInt8(ascii: "/"))
      writeEncoded(p.pointee.item.name, to: &output)
    }
  }

  private func compact(_ value: Int, to output: inout MustacheOutput) {
    TextBuilder.write(capacity: Formatting.compactCapacity, to: &output) {
      Formatting.compact(value, into: &$0)
    }
  }

  private func counted(_ value: Int, _ noun: StaticString, to output: inout MustacheOutput) {
    TextBuilder.write(capacity: Formatting.countedCapacity(noun), to: &output) {
      Formatting.counted(value, noun, into: &$0)
    }
  }

  /// `text` percent-encoded; written whole when encoding would not change it (the usual case).
  private func writeEncoded(_ text: String, to output: inout MustacheOutput) {
    if URLEncoding.isUnreserved(text) {
      output.append(text)
    } else {
      URLEncoding.percentEncode(text) { output.append(byte: $0) }
    }
  }
}
