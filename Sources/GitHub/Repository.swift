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

/// One repository from a search result. Immutable, and cheap to copy and to read:
/// - every field lives in one block of memory that all copies share, so a copy (a batch takes 20 from
///   the cached pages for every answer) is one reference count, not one per string;
/// - `view` reads the fields in place, as UTF-8 and numbers, with no reference counting at all: the
///   card renderer reads a dozen fields of each card per request, on every loop thread at once.
///
/// The `String` properties are made from the block when read.
///
/// ```swift
/// let view = repository.view  // valid while `repository` (or any copy of it) lives
/// let name = view.utf8(.fullName)  // "apple/swift" as bytes
/// ```
public struct Repository: Sendable, Identifiable, Hashable {
  @usableFromInline let storage: RepositoryStorage

  /// GitHub's numeric id, stable across renames; used for de-duplication.
  public var id: Int { view.id }
  /// The short name.
  public var name: String { string(.name) }
  /// `owner/name`.
  public var fullName: String { string(.fullName) }
  /// The owner; GitHub marks it nullable.
  public var owner: RepositoryOwner? {
    guard view.hasOwner else { return nil }
    return RepositoryOwner(
      login: string(.ownerLogin), id: view.ownerID, avatarURL: string(.ownerAvatarURL),
      htmlURL: string(.ownerHTMLURL), type: string(.ownerType))
  }
  /// The owner's login, nil without an owner: one string, where `owner` makes all four of its own.
  public var ownerLogin: String? { optional(.ownerLogin) }
  /// The owner's id, nil without an owner.
  public var ownerID: Int? { view.hasOwner ? view.ownerID : nil }
  /// The repository's page on github.com.
  public var htmlURL: String { string(.htmlURL) }
  /// The description, if any.
  public var description: String? { optional(.description) }
  /// Whether this is a fork.
  public var fork: Bool { view.fork }
  /// The main language, if detected.
  public var language: String? { optional(.language) }
  /// Stargazer count at search time.
  public var stargazersCount: Int { view.stargazersCount }
  /// Fork count.
  public var forksCount: Int { view.forksCount }
  /// Open issues and pull requests.
  public var openIssuesCount: Int { view.openIssuesCount }
  /// Topics; empty when absent (older responses have none).
  public var topics: [String] {
    let view = view
    return (0..<view.topicCount).map { String(decoding: view.topic($0), as: UTF8.self) }
  }
  /// The license's SPDX id, or its name when GitHub has no SPDX id for it.
  public var license: String? { optional(.license) }
  /// ISO-8601 creation time.
  public var createdAt: String { string(.createdAt) }
  /// ISO-8601 last update time.
  public var updatedAt: String { string(.updatedAt) }
  /// ISO-8601 last push time, if any.
  public var pushedAt: String? { optional(.pushedAt) }
  /// The homepage, nil when absent or empty.
  public var homepage: String? { optional(.homepage) }
  /// Whether the repository is archived (false when the field is absent).
  public var archived: Bool { view.archived }

  /// The fields read in place. Valid only while this repository, or a copy of it, is alive: the
  /// caller keeps one for as long as it reads the view.
  @inlinable public var view: RepositoryView { RepositoryView(storage.base) }

  /// A repository from its parts.
  public init(
    id: Int, name: String, fullName: String, owner: RepositoryOwner?, htmlURL: String,
    description: String?, fork: Bool, language: String?, stargazersCount: Int, forksCount: Int,
    openIssuesCount: Int, topics: [String], license: String?, createdAt: String, updatedAt: String,
    pushedAt: String?, homepage: String?, archived: Bool
  ) {
    var texts = [String?](repeating: nil, count: RepositoryView.Text.allCases.count)
    for (field, text) in [
      (.name, name), (.fullName, fullName), (.htmlURL, htmlURL), (.description, description),
      (.language, language), (.license, license), (.createdAt, createdAt), (.updatedAt, updatedAt),
      (.pushedAt, pushedAt), (.homepage, homepage), (.ownerLogin, owner?.login),
      (.ownerAvatarURL, owner?.avatarURL), (.ownerHTMLURL, owner?.htmlURL), (.ownerType, owner?.type),
    ] as [(RepositoryView.Text, String?)] {
      texts[field.rawValue] = text
    }
    storage = RepositoryStorage(
      numbers: [id, stargazersCount, forksCount, openIssuesCount, owner?.id ?? 0],
      flags: (fork ? RepositoryView.forkFlag : 0) | (archived ? RepositoryView.archivedFlag : 0)
        | (owner == nil ? 0 : RepositoryView.ownerFlag),
      texts: texts, topics: topics)
  }

  private func string(_ field: RepositoryView.Text) -> String {
    view.utf8(field).map { String(decoding: $0, as: UTF8.self) } ?? ""
  }

  private func optional(_ field: RepositoryView.Text) -> String? {
    view.utf8(field).map { String(decoding: $0, as: UTF8.self) }
  }

  /// Equal when every field is equal.
  public static func == (a: Repository, b: Repository) -> Bool {
    a.storage === b.storage || a.storage.bytes.elementsEqual(b.storage.bytes)
  }

  /// Hashes every field.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(bytes: storage.bytes)
  }
}
