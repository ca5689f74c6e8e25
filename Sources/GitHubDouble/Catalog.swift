/// One synthetic account: a user or an organisation.
public struct CatalogOwner: Sendable, Equatable {
  /// The numeric account id.
  public let id: Int
  /// The login, following GitHub's rules (alphanumerics and single inner hyphens, ≤ 39).
  public let login: String
  /// True for organisations.
  public let isOrganization: Bool
  /// Indices of this owner's repositories in `Catalog.repositories`.
  public internal(set) var repositoryIndices: [Int] = []
}

/// One synthetic repository.
public struct CatalogRepository: Sendable, Equatable {
  /// The numeric repository id.
  public let id: Int
  /// Index of the owner in `Catalog.owners`.
  public let ownerIndex: Int
  /// The repository name (valid GitHub charset).
  public let name: String
  /// The description; nil for some.
  public let description: String?
  /// Topics, possibly empty.
  public let topics: [String]
  /// The primary language; nil for some.
  public let language: String?
  /// Stars.
  public let stars: Int
  /// Forks.
  public let forks: Int
  /// Open issues.
  public let openIssues: Int
  /// Open issues labelled "help wanted" (for the help-wanted-issues sort).
  public let helpWantedIssues: Int
  /// Size in KB.
  public let size: Int
  /// Unix times.
  public let createdAt: Int, updatedAt: Int, pushedAt: Int
  /// Whether this is a fork.
  public let fork: Bool
  /// Whether archived.
  public let archived: Bool
  /// Index into the license table, or nil.
  public let licenseIndex: Int?
  /// The homepage, nil or empty for many.
  public let homepage: String?
  /// The default branch.
  public let defaultBranch: String
  /// Whether GitHub Pages is on.
  public let hasPages: Bool
}

/// The deterministic synthetic catalog plus its lookup indexes.
public struct Catalog: Sendable {
  /// All owners.
  public let owners: [CatalogOwner]
  /// All repositories.
  public let repositories: [CatalogRepository]
  /// Index of each owner by lowercased login.
  let ownerByLogin: [String: Int]
  /// Index of each repository by "owner/name", lowercased.
  let repositoryByFullName: [String: Int]
  /// Precomputed lowercased search text (UTF-8) per repository.
  let nameText: [[UInt8]]
  let descriptionText: [[UInt8]]
  let topicText: [[UInt8]]
  let lowerLanguage: [String?]
  /// The frozen "now".
  public let referenceTime: Int

  /// Builds the catalog for a configuration; the same seed always gives the same catalog.
  public init(configuration: DoubleConfiguration) {
    var gen = CatalogGenerator(configuration: configuration)
    let (owners, repos) = gen.generate()
    self.owners = owners
    self.repositories = repos
    var byLogin: [String: Int] = [:]
    byLogin.reserveCapacity(owners.count)
    for (i, o) in owners.enumerated() { byLogin[o.login.lowercased()] = i }
    ownerByLogin = byLogin
    var byName: [String: Int] = [:]
    byName.reserveCapacity(repos.count)
    var names: [[UInt8]] = []
    var descs: [[UInt8]] = []
    var tops: [[UInt8]] = []
    var langs: [String?] = []
    names.reserveCapacity(repos.count)
    descs.reserveCapacity(repos.count)
    tops.reserveCapacity(repos.count)
    langs.reserveCapacity(repos.count)
    for (i, r) in repos.enumerated() {
      let lowerName = r.name.lowercased()
      byName[owners[r.ownerIndex].login.lowercased() + "/" + lowerName] = i
      names.append(Array(lowerName.utf8))
      descs.append(Array((r.description ?? "").lowercased().utf8))
      tops.append(Array(r.topics.joined(separator: " ").lowercased().utf8))
      langs.append(r.language?.lowercased())
    }
    repositoryByFullName = byName
    nameText = names
    descriptionText = descs
    topicText = tops
    lowerLanguage = langs
    referenceTime = configuration.referenceTime
  }

  /// The repository index for owner and name (case-insensitive), or nil.
  public func repositoryIndex(owner: String, name: String) -> Int? {
    repositoryByFullName[owner.lowercased() + "/" + name.lowercased()]
  }

  /// The owner index for a login (case-insensitive), or nil.
  public func ownerIndex(login: String) -> Int? { ownerByLogin[login.lowercased()] }

  /// The owner of a repository.
  public func owner(of repo: CatalogRepository) -> CatalogOwner { owners[repo.ownerIndex] }
}
