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

/// One repository from a search result. Immutable, and cheap to copy: the fields live in one shared
/// object, so a copy (a batch takes 20 from the cached pages for every answer) is one reference count
/// rather than one per string, and reading a field borrows it from that object.
public struct Repository: Sendable, Identifiable, Hashable {
  /// The fields, never changed once made: every copy shares them.
  @usableFromInline let storage: Storage

  /// GitHub's numeric id, stable across renames; used for de-duplication.
  @inlinable public var id: Int { storage.fields.id }
  /// The short name.
  @inlinable public var name: String { storage.fields.name }
  /// `owner/name`.
  @inlinable public var fullName: String { storage.fields.fullName }
  /// The owner; GitHub marks it nullable.
  @inlinable public var owner: RepositoryOwner? { storage.fields.owner }
  /// The repository's page on github.com.
  @inlinable public var htmlURL: String { storage.fields.htmlURL }
  /// The description, if any.
  @inlinable public var description: String? { storage.fields.description }
  /// Whether this is a fork.
  @inlinable public var fork: Bool { storage.fields.fork }
  /// The main language, if detected.
  @inlinable public var language: String? { storage.fields.language }
  /// Stargazer count at search time.
  @inlinable public var stargazersCount: Int { storage.fields.stargazersCount }
  /// Fork count.
  @inlinable public var forksCount: Int { storage.fields.forksCount }
  /// Open issues and pull requests.
  @inlinable public var openIssuesCount: Int { storage.fields.openIssuesCount }
  /// Topics; empty when absent (older responses have none).
  @inlinable public var topics: [String] { storage.fields.topics }
  /// The license's SPDX id, or its name when GitHub has no SPDX id for it.
  @inlinable public var license: String? { storage.fields.license }
  /// ISO-8601 creation time.
  @inlinable public var createdAt: String { storage.fields.createdAt }
  /// ISO-8601 last update time.
  @inlinable public var updatedAt: String { storage.fields.updatedAt }
  /// ISO-8601 last push time, if any.
  @inlinable public var pushedAt: String? { storage.fields.pushedAt }
  /// The homepage, nil when absent or empty.
  @inlinable public var homepage: String? { storage.fields.homepage }
  /// Whether the repository is archived (false when the field is absent).
  @inlinable public var archived: Bool { storage.fields.archived }

  /// A repository from its parts.
  public init(
    id: Int, name: String, fullName: String, owner: RepositoryOwner?, htmlURL: String,
    description: String?, fork: Bool, language: String?, stargazersCount: Int, forksCount: Int,
    openIssuesCount: Int, topics: [String], license: String?, createdAt: String, updatedAt: String,
    pushedAt: String?, homepage: String?, archived: Bool
  ) {
    storage = Storage(
      Fields(
        id: id, name: name, fullName: fullName, owner: owner, htmlURL: htmlURL, description: description,
        fork: fork, language: language, stargazersCount: stargazersCount, forksCount: forksCount,
        openIssuesCount: openIssuesCount, topics: topics, license: license, createdAt: createdAt,
        updatedAt: updatedAt, pushedAt: pushedAt, homepage: homepage, archived: archived))
  }

  public static func == (a: Repository, b: Repository) -> Bool {
    a.storage === b.storage || a.storage.fields == b.storage.fields
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(storage.fields)
  }

  /// The fields, held by one object. A `let` of a final class, read by inlinable getters: a reader
  /// in another module borrows a field in place, with no retain of its strings.
  @usableFromInline final class Storage: Sendable {
    @usableFromInline let fields: Fields
    init(_ fields: Fields) { self.fields = fields }
  }

  /// Every field, compared and hashed as the synthesized conformances did before.
  @usableFromInline struct Fields: Hashable, Sendable {
    @usableFromInline let id: Int
    @usableFromInline let name: String
    @usableFromInline let fullName: String
    @usableFromInline let owner: RepositoryOwner?
    @usableFromInline let htmlURL: String
    @usableFromInline let description: String?
    @usableFromInline let fork: Bool
    @usableFromInline let language: String?
    @usableFromInline let stargazersCount: Int
    @usableFromInline let forksCount: Int
    @usableFromInline let openIssuesCount: Int
    @usableFromInline let topics: [String]
    @usableFromInline let license: String?
    @usableFromInline let createdAt: String
    @usableFromInline let updatedAt: String
    @usableFromInline let pushedAt: String?
    @usableFromInline let homepage: String?
    @usableFromInline let archived: Bool
  }
}
