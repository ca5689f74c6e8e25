import Encodings
@_spi(PackedFields) import GitHub
import HTTP
import Mustache
import Paging

/// The names `partials/card` reads, declared once and numbered: the template is bound to them when
/// the library loads, so a card field is found by number. Startup refuses a name the template reads
/// that is not here; `CardBatch.write` does not compile without a case for each; a test checks that
/// the template reads every one, and that its header comment lists every one.
enum CardField: Int, CaseIterable {
  case id, position, setsize, prefetch, fullName, htmlURL, description, language, languageClass
  case starsText, stars, forksLabel, issuesLabel, license, archived, fork, template, topics, updatedISO
  case updatedText, nonPublic
  case barPercent, barBand, ownerLogin, ownerPage, ownerInitials, ownerAvatar, ownerAvatar2x, stargazers
  case batch, describedBy

  /// The name as templates write it: a dotted name for the nested ones (`bar.percent`).
  var name: String {
    switch self {
    case .barPercent: return "bar.percent"
    case .barBand: return "bar.band"
    case .ownerLogin: return "owner.login"
    case .ownerPage: return "owner.page"
    case .ownerInitials: return "owner.initials"
    case .ownerAvatar: return "owner.avatar"
    case .ownerAvatar2x: return "owner.avatar2x"
    case .nonPublic: return "private"
    default: return String(describing: self)
    }
  }

  /// All fields, numbered by their raw values.
  static let schema = MustacheSchema("card", names: allCases.map(\.name))
}

/// The cards of one batch, as rows of `partials/card` (bound to `CardField.schema`). Fields are
/// written from each repository's record in place (`RepositoryRows.withRow`): nothing is allocated
/// per card.
final class CardBatch: MustacheRows {
  /// The list's true total, or -1 when unknown (`aria-setsize`).
  let setsize: Int
  /// The fragment URL of the batch, on its first card (`data-batch`), written straight into the
  /// render; nil for none.
  let batchURL: ListKind.Link?
  /// The id of the divider the first card follows (`aria-describedby`); nil for none.
  let describedBy: String?
  /// The index of the card that carries the prefetch trigger.
  let trigger: Int?
  /// The largest star count in the list, for the bars' scale.
  let largestStars: Int
  /// Unix seconds, for "updated 3 days ago".
  let now: Int
  /// The cards' repositories, read in place by row with no reference count per field
  /// (`RepositoryRows`).
  private let repositories: RepositoryRows
  /// The cards' positions in the list (their repositories are read through `repositories`).
  private let items: [PositionedItem<Repository>]

  /// Most topics shown on one card (they share one line).
  static let maxTopics = 5

  init(
    items: [PositionedItem<Repository>], setsize: Int, trigger: Int?, largestStars: Int, now: Int,
    batchURL: ListKind.Link? = nil, describedBy: String? = nil
  ) {
    self.setsize = setsize
    self.batchURL = batchURL
    self.describedBy = describedBy
    self.trigger = trigger
    self.largestStars = largestStars
    self.now = now
    self.items = items
    repositories = RepositoryRows(items.lazy.map(\.item))
  }

  var schema: MustacheSchema { CardField.schema }

  var count: Int { items.count }

  func count(of field: Int, row: Int) -> Int {
    guard let field = CardField(rawValue: field), items.indices.contains(row) else { return 0 }
    return repositories.withRow(row) { count(of: field, $0, row: row) }
  }

  func write(_ field: Int, row: Int, element: Int, to output: inout MustacheOutput) {
    guard let field = CardField(rawValue: field), items.indices.contains(row) else { return }
    repositories.withRow(row) { write(field, $0, row: row, element: element, to: &output) }
  }

  /// `count(of:row:)` of `repository`, the repository of card `row`.
  @inline(__always)
  private func count(of field: CardField, _ repository: borrowing RepositoryRows.Row, row: Int) -> Int {
    /// 1 when `text` is present and not empty.
    func some(_ text: Repository.Text) -> Int { repository.withUTF8(text) { $0.isEmpty ? 0 : 1 } ?? 0 }
    switch field {
    case .prefetch: return trigger == row ? 1 : 0
    case .batch: return row == 0 && batchURL != nil ? 1 : 0
    case .describedBy: return row == 0 && describedBy != nil ? 1 : 0
    case .description: return some(.description)
    case .language, .languageClass: return some(.language)
    case .license: return some(.license)
    case .archived: return repository[.archived] ? 1 : 0
    case .fork: return repository[.fork] ? 1 : 0
    case .template: return repository[.isTemplate] ? 1 : 0
    case .nonPublic: return repository[.isPublic] ? 0 : 1
    case .topics: return min(repository.topicCount, Self.maxTopics)
    case .ownerAvatar, .ownerAvatar2x: return Self.ownerID(repository) > 0 ? 1 : 0
    case .fullName: return some(.fullName)
    case .ownerLogin, .ownerInitials, .ownerPage, .updatedText:
      // Always some text (initials fall back to "?", the page to "/owners/").
      return 1
    case .id, .position, .setsize, .starsText, .stars, .updatedISO, .barPercent, .barBand, .htmlURL,
      .stargazers, .forksLabel, .issuesLabel:
      return 1
    }
  }

  /// `write(_:row:element:to:)` of `repository`, the repository of card `row`.
  @inline(__always)
  private func write(
    _ field: CardField, _ repository: borrowing RepositoryRows.Row, row: Int, element: Int,
    to output: inout MustacheOutput
  ) {
    switch field {
    case .id: output.append(repository[.id])
    case .position: output.append(items[row].position)
    case .setsize: output.append(setsize)
    case .prefetch: output.append(literal: trigger == row ? "true" : "false")
    case .batch: if row == 0, let batchURL { batchURL.write(to: &output) }
    case .describedBy: if row == 0, let describedBy { output.append(describedBy) }
    case .fullName: text(repository, .fullName, to: &output)
    case .htmlURL:
      if repository.withUTF8(.htmlURL, CardText.isWebLink) == true {
        text(repository, .htmlURL, to: &output)
      } else {
        output.append(
          CardText.safeLink(repositories[row, .htmlURL] ?? "", fallback: repositories[row, .fullName] ?? ""))
      }
    case .description: text(repository, .description, to: &output)
    case .language: text(repository, .language, to: &output)
    case .license: text(repository, .license, to: &output)
    case .starsText: compact(repository[.stargazersCount], to: &output)
    case .stars: output.append(repository[.stargazersCount])
    case .forksLabel: counted(repository[.forksCount], "fork", to: &output)
    case .issuesLabel: counted(repository[.openIssuesCount], "issue", to: &output)
    case .languageClass:
      _ = repository.withUTF8(.language) { LanguageStyle.write(utf8: $0, to: &output) }
    case .archived: output.append(literal: repository[.archived] ? "true" : "false")
    case .fork: output.append(literal: repository[.fork] ? "true" : "false")
    case .template: output.append(literal: repository[.isTemplate] ? "true" : "false")
    case .nonPublic: output.append(literal: repository[.isPublic] ? "false" : "true")
    case .topics:
      if element < min(repository.topicCount, Self.maxTopics) {
        repository.withTopicUTF8(element) { output.append(utf8: $0) }
      }
    case .updatedISO:
      if let updated = Self.updated(repository) { text(repository, updated, to: &output) }
    case .updatedText:
      if let updated = Self.updated(repository),
        let unix = repository.withUTF8(updated, Formatting.unixSeconds(utf8:)) ?? nil
      {
        TextBuilder.write(capacity: Formatting.relativeCapacity, to: &output) {
          Formatting.relative(unix, now: now, into: &$0)
        }
      }
    case .barPercent:
      output.append(CardText.barPercent(stars: repository[.stargazersCount], largest: largestStars))
    case .barBand: output.append(CardText.band(repository[.stargazersCount]))
    case .ownerLogin: Self.login(repository) { output.append(utf8: $0) }
    case .ownerPage:
      output.append(literal: "/owners/")
      Self.login(repository) { writeEncoded($0, to: &output) }
    case .ownerInitials:
      Self.login(repository) { CardText.writeInitials(utf8: $0, to: &output) }
    case .ownerAvatar, .ownerAvatar2x:
      let ownerID = Self.ownerID(repository)
      guard ownerID > 0 else { return }
      output.append(literal: "/avatars/")
      output.append(ownerID)
      output.append(literal: field == .ownerAvatar ? "?s=80" : "?s=160")
    case .stargazers:
      output.append(literal: Routes.starsPathSlash)
      Self.login(repository) { writeEncoded($0, to: &output) }
      output.append(byte: UInt8(ascii: "/"))
      _ = repository.withUTF8(.name) { writeEncoded($0, to: &output) }
    }
  }

  /// `body` with the owner login of `repository`: `ownerLogin`, or without an owner, the part of
  /// `fullName` before `/`; not called when there is none.
  @inline(__always)
  private static func login(_ repository: borrowing RepositoryRows.Row, _ body: (Span<UInt8>) -> Void) {
    guard repository[.hasOwner] else {
      _ = repository.withUTF8(.fullName) { name in
        var end = 0
        while end < name.count && name[end] != UInt8(ascii: "/") { end += 1 }
        body(name.extracting(0..<end))
      }
      return
    }
    _ = repository.withUTF8(.ownerLogin, body)
  }

  /// The owner id of `repository`; 0 without an owner.
  @inline(__always)
  private static func ownerID(_ repository: borrowing RepositoryRows.Row) -> Int {
    repository[.hasOwner] ? repository[.ownerID] : 0
  }

  /// `pushedAt` of `repository`, or `updatedAt` when GitHub sent no push time; nil with neither.
  @inline(__always)
  private static func updated(_ repository: borrowing RepositoryRows.Row) -> Repository.Text? {
    if repository.withUTF8(.pushedAt, { _ in true }) != nil { return .pushedAt }
    return repository.withUTF8(.updatedAt, { _ in true }) != nil ? .updatedAt : nil
  }

  @inline(__always)
  private func text(
    _ repository: borrowing RepositoryRows.Row, _ field: Repository.Text, to output: inout MustacheOutput
  ) {
    _ = repository.withUTF8(field) { output.append(utf8: $0) }
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
  private func writeEncoded(_ utf8: Span<UInt8>, to output: inout MustacheOutput) {
    var unreserved = true
    for i in utf8.indices where !URLEncoding.isUnreserved(utf8[i]) {
      unreserved = false
      break
    }
    if unreserved {
      output.append(utf8: utf8)
    } else {
      for i in utf8.indices {
        URLEncoding.percentEncode(utf8: CollectionOfOne(utf8[i])) { output.append(byte: $0) }
      }
    }
  }
}
