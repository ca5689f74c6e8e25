/// One synthetic account: a user or an organisation.
public struct CatalogOwner: Sendable, Equatable {
  /// The numeric account id.
  public let id: Int
  /// The login, following GitHub's rules (alphanumerics and single inner hyphens, ≤ 39) unless
  /// `DoubleConfiguration.hostileNames` is on.
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
  /// The repository name (valid GitHub charset unless `DoubleConfiguration.hostileNames` is on).
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
  /// Whether it is a template repository: about 1 in 40, derived from the id so that the generator's
  /// sequence, and with it every other value of the catalog, stays as it was.
  public var isTemplate: Bool { SplitMix64.mix(UInt64(truncatingIfNeeded: id) ^ 0x7465_6D70) % 40 == 0 }
  /// Whether it is private: only its owner (with a `repo`-scoped token) may see it, or, for the
  /// installed organisation's, its members.
  public internal(set) var isPrivate = false
}

/// The deterministic synthetic catalog plus its lookup indexes.
public struct Catalog: Sendable {
  /// All owners.
  public let owners: [CatalogOwner]
  /// All repositories: the public ones first, then the private ones (from `publicCount` on).
  public let repositories: [CatalogRepository]
  /// How many repositories are public: indices below it are public, the rest private.
  public let publicCount: Int
  /// The organisation where the double's GitHub App is installed (see `AppInstallation`), if any.
  public let installedOrganisation: CatalogOwner?
  /// Its index in `owners`.
  let installedIndex: Int?
  /// Its members.
  let installation: AppInstallation
  /// Index of each owner by lowercased login.
  let ownerByLogin: [String: Int]
  /// Index of each repository by "owner/name", lowercased.
  let repositoryByFullName: [String: Int]
  /// Precomputed lowercased, NUL-terminated search text per repository (for `strstr`).
  let nameText: [[CChar]]
  let descriptionText: [[CChar]]
  let topicText: [[CChar]]
  /// Lowercased languages with spaces as hyphens, so `language:jupyter-notebook` also matches.
  let lowerLanguage: [String?]
  /// Hot columns, so filtering and sorting never copy whole records.
  let columns: Columns

  /// Numeric fields per repository, index-aligned with `repositories`.
  struct Columns: Sendable {
    var ids: [Int] = []
    var stars: [Int] = []
    var forks: [Int] = []
    var helpWanted: [Int] = []
    var updated: [Int] = []
    var created: [Int] = []
    var pushed: [Int] = []
    var size: [Int] = []
    var isFork: [Bool] = []
    var archived: [Bool] = []
  }
  /// The frozen "now".
  public let referenceTime: Int

  /// Builds the catalog for a configuration; the same seed always gives the same catalog.
  public init(configuration: DoubleConfiguration) {
    var gen = CatalogGenerator(configuration: configuration)
    let (owners, repos) = gen.generate()
    self.owners = owners
    self.repositories = repos
    publicCount = repos.firstIndex(where: \.isPrivate) ?? repos.count
    installation = configuration.installation
    installedIndex = PrivateRepositories.installedIndex(configuration, owners)
    installedOrganisation = installedIndex.map { owners[$0] }
    var byLogin: [String: Int] = [:]
    byLogin.reserveCapacity(owners.count)
    for (i, o) in owners.enumerated() { byLogin[o.login.lowercased()] = i }
    ownerByLogin = byLogin
    var byName: [String: Int] = [:]
    byName.reserveCapacity(repos.count)
    var names: [[CChar]] = []
    var descs: [[CChar]] = []
    var tops: [[CChar]] = []
    var cols = Columns()
    var langs: [String?] = []
    names.reserveCapacity(repos.count)
    descs.reserveCapacity(repos.count)
    tops.reserveCapacity(repos.count)
    langs.reserveCapacity(repos.count)
    for (i, r) in repos.enumerated() {
      let lowerName = r.name.lowercased()
      byName[owners[r.ownerIndex].login.lowercased() + "/" + lowerName] = i
      names.append(Catalog.cString(lowerName))
      descs.append(Catalog.cString((r.description ?? "").lowercased()))
      tops.append(Catalog.cString(r.topics.joined(separator: " ").lowercased()))
      langs.append(r.language.map { $0.lowercased().replacing(" ", with: "-") })
      cols.ids.append(r.id)
      cols.stars.append(r.stars)
      cols.forks.append(r.forks)
      cols.helpWanted.append(r.helpWantedIssues)
      cols.updated.append(r.updatedAt)
      cols.created.append(r.createdAt)
      cols.pushed.append(r.pushedAt)
      cols.size.append(r.size)
      cols.isFork.append(r.fork)
      cols.archived.append(r.archived)
    }
    repositoryByFullName = byName
    nameText = names
    descriptionText = descs
    topicText = tops
    lowerLanguage = langs
    columns = cols
    referenceTime = configuration.referenceTime
  }

  /// UTF-8 bytes plus a terminating NUL (NUL bytes inside are dropped: they cannot be searched for).
  static func cString(_ s: String) -> [CChar] {
    var out: [CChar] = []
    out.reserveCapacity(s.utf8.count + 1)
    for b in s.utf8 where b != 0 { out.append(CChar(bitPattern: b)) }
    out.append(0)
    return out
  }

  /// The repository index for owner and name (case-insensitive), or nil.
  public func repositoryIndex(owner: String, name: String) -> Int? {
    repositoryByFullName[owner.lowercased() + "/" + name.lowercased()]
  }

  /// The owner index for a login (case-insensitive), or nil.
  public func ownerIndex(login: String) -> Int? { ownerByLogin[login.lowercased()] }

  /// Whether the repository at `index` may be shown to `viewer`: public ones to everyone, a private
  /// one to its owner's `repo` token or, for the installed organisation's, to its members' tokens.
  func isVisible(_ index: Int, to viewer: DoubleViewer) -> Bool {
    guard index >= publicCount else { return true }
    let owner = repositories[index].ownerIndex
    return owner == viewer.owner || (viewer.installation && owner == installedIndex)
  }

  /// Whether `login` is a member of the installed organisation.
  public func isInstallationMember(_ login: String) -> Bool {
    installedIndex != nil && installation.isMember(login)
  }

  /// The installed organisation's private repositories.
  public var installedRepositories: [CatalogRepository] {
    guard let installedIndex else { return [] }
    return privateRepositories.filter { $0.ownerIndex == installedIndex }
  }

  /// The public repositories (what anonymous searches see).
  public var publicRepositories: ArraySlice<CatalogRepository> { repositories[..<publicCount] }

  /// The private repositories, for tests and the demo's hint.
  public var privateRepositories: ArraySlice<CatalogRepository> { repositories[publicCount...] }

  /// The owner of a repository.
  public func owner(of repo: CatalogRepository) -> CatalogOwner { owners[repo.ownerIndex] }
}
