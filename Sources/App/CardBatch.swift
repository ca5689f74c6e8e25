import GitHub
import HTTP
import Mustache
import Paging

/// The cards of one batch, as rows of `partials/card` (bound to `CardField.schema`). Fields are
/// written from each repository's block in place (`Repository.view`): nothing is allocated, copied or
/// reference-counted per card.
final class CardBatch: MustacheRows {
  /// The batch's repositories. Held so that their blocks, which `rows` points into, stay alive.
  let items: [PositionedItem<Repository>]
  /// The list size capped at 1000 (`aria-setsize`).
  let setsize: Int
  /// The index of the card that carries the prefetch trigger.
  let trigger: Int?
  /// The largest star count in the list, for the bars' scale.
  let largestStars: Int
  /// Unix seconds, for "updated 3 days ago".
  let now: Int
  /// What each card reads, all plain values and pointers into `items`' blocks.
  private let rows: [Row]

  /// No text: what a field GitHub did not send reads as.
  private static var none: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: nil, count: 0) }

  /// Most topics shown on one card (they share one line).
  static let maxTopics = 5

  /// One card's view and the derived texts more than one field uses.
  // @unchecked Sendable: the pointers read blocks that are never written after they are made, and
  // that the batch's `items` keep alive as long as any row can be read.
  private struct Row: @unchecked Sendable {
    let view: RepositoryView
    let position: Int
    /// The owner's login; the full name's part before `/` when GitHub sent no owner.
    let login: UnsafeBufferPointer<UInt8>
    /// The owner id; 0 without an owner.
    let ownerID: Int
    /// `pushedAt`, or `updatedAt` when GitHub sent no push time.
    let updated: UnsafeBufferPointer<UInt8>
  }

  init(items: [PositionedItem<Repository>], setsize: Int, trigger: Int?, largestStars: Int, now: Int) {
    self.items = items
    self.setsize = setsize
    self.trigger = trigger
    self.largestStars = largestStars
    self.now = now
    // Each view points into a repository `items` holds: valid for this object's whole life.
    rows = items.map { item in
      let view = item.item.view
      let fullName = view.utf8(.fullName) ?? Self.none
      let login =
        view.utf8(.ownerLogin)
        ?? UnsafeBufferPointer(
          rebasing: fullName[..<(fullName.firstIndex(of: UInt8(ascii: "/")) ?? fullName.endIndex)])
      return Row(
        view: view, position: item.position, login: login, ownerID: view.hasOwner ? view.ownerID : 0,
        updated: view.utf8(.pushedAt) ?? view.utf8(.updatedAt) ?? Self.none)
    }
  }

  var schema: MustacheSchema { CardField.schema }

  var count: Int { rows.count }

  func count(of field: Int, row: Int) -> Int {
    guard let field = CardField(rawValue: field), rows.indices.contains(row) else { return 0 }
    return count(of: field, rows[row], row: row)
  }

  func write(_ field: Int, row: Int, element: Int, to output: inout MustacheOutput) {
    guard let field = CardField(rawValue: field), rows.indices.contains(row) else { return }
    write(field, rows[row], row: row, element: element, to: &output)
  }

  private func count(of field: CardField, _ card: Row, row: Int) -> Int {
    let view = card.view
    switch field {
    case .prefetch: return trigger == row ? 1 : 0
    case .description: return view.utf8(.description)?.isEmpty == false ? 1 : 0
    case .language, .languageClass: return view.utf8(.language)?.isEmpty == false ? 1 : 0
    case .license: return view.utf8(.license)?.isEmpty == false ? 1 : 0
    case .archived: return view.archived ? 1 : 0
    case .fork: return view.fork ? 1 : 0
    case .topics: return min(view.topicCount, Self.maxTopics)
    case .ownerAvatar, .ownerAvatar2x: return card.ownerID > 0 ? 1 : 0
    case .name: return view.utf8(.name)?.isEmpty == false ? 1 : 0
    case .fullName: return view.utf8(.fullName)?.isEmpty == false ? 1 : 0
    case .ownerLogin, .ownerInitials, .ownerPage, .updatedText:
      // Always some text (initials fall back to "?", the page to "/owners/").
      return 1
    case .id, .position, .setsize, .starsText, .stars, .forksText, .issuesText, .updatedISO, .barPercent,
      .barBand, .htmlURL, .stargazers, .forksLabel, .issuesLabel:
      return 1
    }
  }

  private func write(_ field: CardField, _ card: Row, row: Int, element: Int, to output: inout MustacheOutput)
  {
    let view = card.view
    switch field {
    case .id: output.append(view.id)
    case .position: output.append(card.position)
    case .setsize: output.append(setsize)
    case .prefetch: output.append(literal: trigger == row ? "true" : "false")
    case .name: text(view.utf8(.name), to: &output)
    case .fullName: text(view.utf8(.fullName), to: &output)
    case .htmlURL:
      let url = view.utf8(.htmlURL) ?? Self.none
      if CardText.isWebLink(url) {
        output.append(utf8: url)
      } else {
        let fullName = view.utf8(.fullName).map { String(decoding: $0, as: UTF8.self) } ?? ""
        output.append(CardText.safeLink(String(decoding: url, as: UTF8.self), fallback: fullName))
      }
    case .description: text(view.utf8(.description), to: &output)
    case .language: text(view.utf8(.language), to: &output)
    case .license: text(view.utf8(.license), to: &output)
    case .starsText: compact(view.stargazersCount, to: &output)
    case .stars: output.append(view.stargazersCount)
    case .forksText: compact(view.forksCount, to: &output)
    case .issuesText: compact(view.openIssuesCount, to: &output)
    case .forksLabel: counted(view.forksCount, "fork", to: &output)
    case .issuesLabel: counted(view.openIssuesCount, "issue", to: &output)
    case .languageClass:
      if let language = view.utf8(.language) {
        LanguageStyle.write(utf8: language, to: &output)
      }
    case .archived: output.append(literal: view.archived ? "true" : "false")
    case .fork: output.append(literal: view.fork ? "true" : "false")
    case .topics:
      if element < min(view.topicCount, Self.maxTopics) { output.append(utf8: view.topic(element)) }
    case .updatedISO: output.append(utf8: card.updated)
    case .updatedText:
      if let unix = Formatting.unixSeconds(utf8: card.updated) {
        TextBuilder.write(capacity: Formatting.relativeCapacity, to: &output) {
          Formatting.relative(unix, now: now, into: &$0)
        }
      }
    case .barPercent:
      output.append(CardText.barPercent(stars: view.stargazersCount, largest: largestStars))
    case .barBand: output.append(CardText.band(view.stargazersCount))
    case .ownerLogin: output.append(utf8: card.login)
    case .ownerPage:
      output.append(literal: "/owners/")
      writeEncoded(card.login, to: &output)
    case .ownerInitials:
      CardText.writeInitials(utf8: card.login, to: &output)
    case .ownerAvatar, .ownerAvatar2x:
      guard card.ownerID > 0 else { return }
      output.append(literal: "/avatars/")
      output.append(card.ownerID)
      output.append(literal: field == .ownerAvatar ? "?s=80" : "?s=160")
    case .stargazers:
      output.append(literal: "/fragments/stars/")
      writeEncoded(card.login, to: &output)
      output.append(byte: UInt8(ascii: "/"))
      writeEncoded(view.utf8(.name) ?? Self.none, to: &output)
    }
  }

  private func text(_ utf8: UnsafeBufferPointer<UInt8>?, to output: inout MustacheOutput) {
    if let utf8 { output.append(utf8: utf8) }
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

  /// `utf8` percent-encoded; written whole when encoding would not change it (the usual case).
  private func writeEncoded(_ utf8: UnsafeBufferPointer<UInt8>, to output: inout MustacheOutput) {
    if utf8.allSatisfy(URLEncoding.isUnreserved) {
      output.append(utf8: utf8)
    } else {
      URLEncoding.percentEncode(utf8: utf8) { output.append(byte: $0) }
    }
  }
}
