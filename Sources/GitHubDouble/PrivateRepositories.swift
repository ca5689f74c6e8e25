/// Private repositories for the sign-in flow: a few catalog users each own some, visible only to
/// their own `repo`-scoped tokens, and the organisation where the double's GitHub App is installed
/// owns some, visible to its members. They come after every public repository and draw from their own
/// generator, so the public catalog is the same with or without them.
enum PrivateRepositories {
  /// The topic every private repository carries, so a test can find them all (`topic:private-fixture`).
  static let topic = "private-fixture"
  /// The topic and name prefix of the installed organisation's private repositories.
  static let installedTopic = "installed-app"
  static let installedPrefix = "vault-"

  /// The installed organisation: the last organisation with a plain login (a quiet account, so the
  /// busiest owners' lists stay as they were); nil without private repositories to give it.
  static func installedIndex(_ config: DoubleConfiguration, _ owners: [CatalogOwner]) -> Int? {
    guard config.installation.privateRepositories > 0 else { return nil }
    return owners.indices.reversed().first { owners[$0].isOrganization && isPlainLogin(owners[$0].login) }
  }

  /// Appends `privateRepositoriesPerOwner` private repositories to each of the last
  /// `privateRepositoryOwners` users (quiet accounts, so the busiest owners' lists stay as they were;
  /// organisations and logins with other characters are skipped).
  static func append(
    _ config: DoubleConfiguration, _ owners: inout [CatalogOwner], _ repos: inout [CatalogRepository],
    used: inout Set<String>
  ) {
    let perOwner = max(0, min(config.privateRepositoriesPerOwner, 50))
    guard config.privateRepositoryOwners > 0, perOwner > 0 else { return }
    var rng = SplitMix64(seed: SplitMix64.mix(config.seed ^ 0x9817_A7E0_5EC2_E750))
    let chosen = owners.indices.reversed().filter {
      !owners[$0].isOrganization && isPlainLogin(owners[$0].login)
    }
    .prefix(config.privateRepositoryOwners)
    var nextID = (repos.map(\.id).max() ?? 10_000) + 1
    let now = config.referenceTime
    typealias V = CatalogVocabulary
    for ownerIndex in chosen {
      let login = owners[ownerIndex].login
      for _ in 0..<perOwner {
        let noun = V.nouns[rng.below(V.nouns.count)]
        let adjective = V.adjectives[rng.below(V.adjectives.count)]
        var name = "private-" + noun
        while used.contains(login.lowercased() + "/" + name.lowercased()) {
          name += "-" + String(rng.below(100))
        }
        used.insert(login.lowercased() + "/" + name.lowercased())
        let created = now - 86_400 * (200 + rng.below(800))
        let pushed = now - 86_400 * rng.below(30)
        var repo = CatalogRepository(
          id: nextID, ownerIndex: ownerIndex, name: name,
          description:
            "Private: \(adjective) \(noun) for \(V.domains[rng.below(V.domains.count)]), seen by \(login) only.",
          topics: [topic, noun.lowercased().replacingSpacesAndSymbols()].filter { !$0.isEmpty },
          language: "Swift",
          stars: 200 + rng.below(5000), forks: rng.below(40), openIssues: rng.below(20), helpWantedIssues: 0,
          size: 100 + rng.below(20_000), createdAt: created, updatedAt: pushed, pushedAt: pushed, fork: false,
          archived: false, licenseIndex: nil, homepage: nil, defaultBranch: "main", hasPages: false)
        repo.isPrivate = true
        nextID += 1 + rng.below(50)
        owners[ownerIndex].repositoryIndices.append(repos.count)
        repos.append(repo)
      }
    }
    appendInstalled(config, &owners, &repos, used: &used, nextID: nextID)
  }

  /// The installed organisation's private repositories (`AppInstallation.privateRepositories`, at
  /// most 50), from a generator of their own.
  private static func appendInstalled(
    _ config: DoubleConfiguration, _ owners: inout [CatalogOwner], _ repos: inout [CatalogRepository],
    used: inout Set<String>, nextID: Int
  ) {
    guard let orgIndex = installedIndex(config, owners) else { return }
    var rng = SplitMix64(seed: SplitMix64.mix(config.seed ^ 0x1257_A11E_D0F6_0A17))
    var nextID = nextID + 1000
    let login = owners[orgIndex].login
    let now = config.referenceTime
    typealias V = CatalogVocabulary
    for _ in 0..<max(0, min(config.installation.privateRepositories, 50)) {
      let noun = V.nouns[rng.below(V.nouns.count)]
      var name = installedPrefix + noun.lowercased().replacingSpacesAndSymbols()
      while used.contains(login.lowercased() + "/" + name.lowercased()) {
        name += "-" + String(rng.below(100))
      }
      used.insert(login.lowercased() + "/" + name.lowercased())
      let pushed = now - 86_400 * rng.below(30)
      var repo = CatalogRepository(
        id: nextID, ownerIndex: orgIndex, name: name,
        description:
          "Private to \(login): \(V.adjectives[rng.below(V.adjectives.count)]) \(noun) "
          + "that only the organisation's members see.",
        topics: [topic, installedTopic], language: "Swift", stars: 300 + rng.below(3000),
        forks: rng.below(20),
        openIssues: rng.below(10), helpWantedIssues: 0, size: 100 + rng.below(9000),
        createdAt: now - 86_400 * (100 + rng.below(600)), updatedAt: pushed, pushedAt: pushed, fork: false,
        archived: false, licenseIndex: nil, homepage: nil, defaultBranch: "main", hasPages: false)
      repo.isPrivate = true
      nextID += 1 + rng.below(50)
      owners[orgIndex].repositoryIndices.append(repos.count)
      repos.append(repo)
    }
  }

  /// Letters, digits and hyphens only: a login that survives any URL or query unchanged.
  private static func isPlainLogin(_ login: String) -> Bool {
    !login.isEmpty && login.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
  }
}
