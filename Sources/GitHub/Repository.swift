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

/// One repository from a search result.
public struct Repository: Sendable, Identifiable, Hashable {
  /// GitHub's numeric id, stable across renames; used for de-duplication.
  public var id: Int
  /// The short name.
  public var name: String
  /// `owner/name`.
  public var fullName: String
  /// The owner; GitHub marks it nullable.
  public var owner: RepositoryOwner?
  /// The repository's page on github.com.
  public var htmlURL: String
  /// The description, if any.
  public var description: String?
  /// Whether this is a fork.
  public var fork: Bool
  /// The main language, if detected.
  public var language: String?
  /// Stargazer count at search time.
  public var stargazersCount: Int
  /// Fork count.
  public var forksCount: Int
  /// Open issues and pull requests.
  public var openIssuesCount: Int
  /// Topics; empty when absent (older responses have none).
  public var topics: [String]
  /// The license's SPDX id, or its name when GitHub has no SPDX id for it.
  public var license: String?
  /// ISO-8601 creation time.
  public var createdAt: String
  /// ISO-8601 last update time.
  public var updatedAt: String
  /// ISO-8601 last push time, if any.
  public var pushedAt: String?
  /// The homepage, nil when absent or empty.
  public var homepage: String?
  /// Whether the repository is archived (false when the field is absent).
  public var archived: Bool

  /// A repository from its parts.
  public init(
    id: Int, name: String, fullName: String, owner: RepositoryOwner?, htmlURL: String,
    description: String?, fork: Bool, language: String?, stargazersCount: Int, forksCount: Int,
    openIssuesCount: Int, topics: [String], license: String?, createdAt: String, updatedAt: String,
    pushedAt: String?, homepage: String?, archived: Bool
  ) {
    self.id = id
    self.name = name
    self.fullName = fullName
    self.owner = owner
    self.htmlURL = htmlURL
    self.description = description
    self.fork = fork
    self.language = language
    self.stargazersCount = stargazersCount
    self.forksCount = forksCount
    self.openIssuesCount = openIssuesCount
    self.topics = topics
    self.license = license
    self.createdAt = createdAt
    self.updatedAt = updatedAt
    self.pushedAt = pushedAt
    self.homepage = homepage
    self.archived = archived
  }
}
