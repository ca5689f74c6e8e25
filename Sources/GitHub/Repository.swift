import HTTP
import Packing

/// The owner of a repository as search results show it.
public struct RepositoryOwner: Sendable, Hashable {
  /// The account name.
  public var login: String
  /// The numeric account id (also the avatar id).
  public var id: Int
  /// GitHub's avatar URL for the account (may be empty in old responses).
  public var avatarURL: String
  /// The account's page on github.com.
  public var htmlURL: String
  /// `User`, `Organization` or `Bot`.
  public var type: String

  /// An owner from its parts.
  public init(login: String, id: Int, avatarURL: String, htmlURL: String, type: String) {
    self.login = login
    self.id = id
    self.avatarURL = avatarURL
    self.htmlURL = htmlURL
    self.type = type
  }
}

/// One repository from a search result, as plain values: read its properties, compare it, build
/// one with `init(id:name:fullName:…)`.
///
/// ```swift
/// let apple = RepositoryOwner(
///   login: "apple", id: 10639145, avatarURL: "", htmlURL: "https://github.com/apple", type: "Organization")
/// let swift = Repository(
///   id: 44838949, name: "swift", fullName: "apple/swift", owner: apple,
///   htmlURL: "https://github.com/apple/swift", stargazersCount: 67_000,
///   createdAt: "2015-10-23T21:15:07Z", updatedAt: "2026-11-27T08:00:00Z", isPublic: true)
/// swift.fullName         // "apple/swift"
/// swift.createdSeconds   // 1445634907
/// ```
///
/// Behind the properties, the fields live in one `PackedRecord` that all copies share: a copy is one
/// reference, and the engines that read a dozen fields of each card per request (the card writer,
/// `RepositoryRows`) and store pages in the shared cache (`PayloadCodec`) read the fields by their
/// declaration, in place. That form is an engine detail: its API (`Number`, `Flag` and `Text`, the
/// subscripts, `withUTF8`, `init(number:flag:text:topics:)`) is `@_spi(PackedFields)`, so only a file
/// that says `@_spi(PackedFields) import GitHub` reaches it.
///
/// The fields are declared once, by kind, in `Number`, `Flag` and `Text` (plus the topics), and
/// everything else follows from the cases: the plain `init` answers every case (a new case does not
/// compile until it gives it), the decoder goes through it (`DoubleFieldsTests` fails on a field it
/// does not give), the shared cache stores every case, and the tests round-trip every case.
public struct Repository: Sendable, Identifiable, Hashable {
  /// The whole-number fields. `createdSeconds` is `createdAt` as Unix seconds, worked out once when
  /// the value is made (`createdSeconds(of:)`): windows place tie-bucket slices by it on every read.
  @_spi(PackedFields) public enum Number: Int, CaseIterable, Sendable {
    case id, stargazersCount, forksCount, openIssuesCount, ownerID, createdSeconds
  }

  /// The yes/no fields. `isPublic` is true only when GitHub said so (`private: false`, and
  /// `visibility: "public"` when sent): a missing or unknown visibility is not public.
  @_spi(PackedFields) public enum Flag: Int, CaseIterable, Sendable {
    case fork, archived, hasOwner, isTemplate, isPublic
  }

  /// The text fields; nil (absent) differs from empty. The owner's are nil without an owner.
  @_spi(PackedFields) public enum Text: Int, CaseIterable, Sendable {
    case name, fullName, htmlURL, description, language, license, createdAt, updatedAt, pushedAt, homepage
    case ownerLogin, ownerAvatarURL, ownerHTMLURL, ownerType
  }

  /// The fields' slots: numbers first, then the flags as one number, then the texts and the topics.
  @usableFromInline let record: PackedRecord

  /// A repository from its fields. `createdSeconds` comes from `createdAt`; the owner's fields from
  /// `owner` (none without one); an empty `homepage` is none.
  public init(
    id: Int, name: String, fullName: String, owner: RepositoryOwner?, htmlURL: String,
    description: String? = nil, fork: Bool = false, language: String? = nil, stargazersCount: Int = 0,
    forksCount: Int = 0, openIssuesCount: Int = 0, topics: [String] = [], license: String? = nil,
    createdAt: String, updatedAt: String, pushedAt: String? = nil, homepage: String? = nil,
    archived: Bool = false, isTemplate: Bool = false, isPublic: Bool
  ) {
    self.init(
      number: { field in
        switch field {
        case .id: return id
        case .stargazersCount: return stargazersCount
        case .forksCount: return forksCount
        case .openIssuesCount: return openIssuesCount
        case .ownerID: return owner?.id ?? 0
        case .createdSeconds: return Self.createdSeconds(of: createdAt)
        }
      },
      flag: { field in
        switch field {
        case .fork: return fork
        case .archived: return archived
        case .hasOwner: return owner != nil
        case .isTemplate: return isTemplate
        case .isPublic: return isPublic
        }
      },
      text: { field in
        switch field {
        case .name: return name
        case .fullName: return fullName
        case .htmlURL: return htmlURL
        case .description: return description
        case .language: return language
        case .license: return license
        case .createdAt: return createdAt
        case .updatedAt: return updatedAt
        case .pushedAt: return pushedAt
        case .homepage: return homepage?.isEmpty == false ? homepage : nil
        case .ownerLogin: return owner?.login
        case .ownerAvatarURL: return owner?.avatarURL
        case .ownerHTMLURL: return owner?.htmlURL
        case .ownerType: return owner?.type
        }
      }, topics: topics)
  }

  /// A repository with every field given by the closures, which are asked once per case.
  @_spi(PackedFields) public init(
    number: (Number) -> Int, flag: (Flag) -> Bool, text: (Text) -> String?, topics: [String]
  ) {
    var flags = 0
    for field in Flag.allCases where flag(field) { flags |= 1 << field.rawValue }
    record = PackedRecord(
      numbers: Number.allCases.map(number) + [flags], texts: Text.allCases.map(text), list: topics)
  }

  /// A repository from a record of the declared shape (`PayloadCodec`), or nil for another shape.
  init?(record: PackedRecord) {
    guard record.numberCount == Self.numberSlots, record.textCount == Text.allCases.count else { return nil }
    self.record = record
  }

  /// `createdAt` as Unix seconds; 0 when it does not parse as an ISO-8601 time.
  static func createdSeconds(of createdAt: String?) -> Int {
    createdAt.flatMap { CivilDate.unixSeconds(isoTimestamp: Substring($0)) } ?? 0
  }

  /// How many numbers the record holds: the `Number`s and one word of flags.
  static let numberSlots = flagsSlot + 1

  /// The number slot that holds the flags, one bit per `Flag` (after the `Number`s). A constant: every
  /// flag of every card reads it, and `Number.allCases.count` builds the cases' array on each read.
  /// `RepositoryTests` checks that it follows the last `Number`.
  @inlinable static var flagsSlot: Int { 6 }

  /// The declared fields' names in order: the shared cache keys its format to them, so entries
  /// written with another declaration are misses, never misread.
  static let layout =
    (Number.allCases.map { "\($0)" } + Flag.allCases.map { "\($0)" } + Text.allCases.map { "\($0)" })
    .joined(separator: ",")

  /// A whole-number field.
  @_spi(PackedFields) public subscript(_ field: Number) -> Int { record.number(field.rawValue) }
  /// A yes/no field.
  @_spi(PackedFields) public subscript(_ field: Flag) -> Bool {
    record.number(Self.flagsSlot) & (1 << field.rawValue) != 0
  }
  /// A text field, nil when absent.
  @_spi(PackedFields) public subscript(_ field: Text) -> String? { record.string(field.rawValue) }

  /// `body` with the UTF-8 of `field`, read in place; nil (and `body` not called) when absent.
  @_spi(PackedFields) public func withUTF8<Result>(_ field: Text, _ body: (Span<UInt8>) -> Result)
    -> Result?
  {
    record.withUTF8(field.rawValue, body)
  }

  /// How many topics there are.
  @_spi(PackedFields) public var topicCount: Int { record.listCount }

  /// `body` with the UTF-8 of topic `index` (`0..<topicCount`), read in place.
  @_spi(PackedFields) public func withTopicUTF8<Result>(_ index: Int, _ body: (Span<UInt8>) -> Result)
    -> Result
  {
    record.withListUTF8(index, body)
  }

  /// GitHub's numeric id, stable across renames; used for de-duplication.
  public var id: Int { self[.id] }
  /// The short name.
  public var name: String { self[.name] ?? "" }
  /// `owner/name`.
  public var fullName: String { self[.fullName] ?? "" }
  /// The owner; GitHub marks it nullable.
  public var owner: RepositoryOwner? {
    guard self[.hasOwner] else { return nil }
    return RepositoryOwner(
      login: self[.ownerLogin] ?? "", id: self[.ownerID], avatarURL: self[.ownerAvatarURL] ?? "",
      htmlURL: self[.ownerHTMLURL] ?? "", type: self[.ownerType] ?? "")
  }
  /// The owner's login, nil without an owner: one string, where `owner` makes all four of its own.
  public var ownerLogin: String? { self[.ownerLogin] }
  /// The owner's id, nil without an owner.
  public var ownerID: Int? { self[.hasOwner] ? self[.ownerID] : nil }
  /// The repository's page on github.com.
  public var htmlURL: String { self[.htmlURL] ?? "" }
  /// The description, if any.
  public var description: String? { self[.description] }
  /// Whether this is a fork.
  public var fork: Bool { self[.fork] }
  /// The main language, if detected.
  public var language: String? { self[.language] }
  /// Stargazer count at search time.
  public var stargazersCount: Int { self[.stargazersCount] }
  /// Fork count.
  public var forksCount: Int { self[.forksCount] }
  /// Open issues and pull requests.
  public var openIssuesCount: Int { self[.openIssuesCount] }
  /// Topics; empty when absent (older responses have none).
  public var topics: [String] { (0..<topicCount).map(record.listString) }
  /// The license's SPDX id, or its name when GitHub has no SPDX id for it.
  public var license: String? { self[.license] }
  /// ISO-8601 creation time.
  public var createdAt: String { self[.createdAt] ?? "" }
  /// `createdAt` as Unix seconds (0 when GitHub sent none that parses): tie-bucket slices go by it.
  public var createdSeconds: Int { self[.createdSeconds] }
  /// ISO-8601 last update time.
  public var updatedAt: String { self[.updatedAt] ?? "" }
  /// ISO-8601 last push time, if any.
  public var pushedAt: String? { self[.pushedAt] }
  /// The homepage, nil when absent or empty.
  public var homepage: String? { self[.homepage] }
  /// Whether the repository is archived (false when the field is absent).
  public var archived: Bool { self[.archived] }
  /// Whether the repository is a template (false when the field is absent).
  public var isTemplate: Bool { self[.isTemplate] }
  /// Whether GitHub said the repository is public; false when it said private or internal, or said
  /// nothing (an answer holding such an item belongs to whoever fetched it).
  public var isPublic: Bool { self[.isPublic] }
}
