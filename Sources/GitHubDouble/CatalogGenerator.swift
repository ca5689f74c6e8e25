/// Generates owners and repositories from a seed. Pure and deterministic.
struct CatalogGenerator {
  private var rng: SplitMix64
  private let config: DoubleConfiguration
  private typealias V = CatalogVocabulary

  init(configuration: DoubleConfiguration) {
    config = configuration
    rng = SplitMix64(seed: SplitMix64.mix(configuration.seed ^ 0xC0FF_EE00_D0B1_E5ED))
  }

  mutating func generate() -> ([CatalogOwner], [CatalogRepository]) {
    var owners = makeOwners(count: max(1, config.ownerCount))
    var repos: [CatalogRepository] = []
    let count = max(0, config.repositoryCount)
    repos.reserveCapacity(count)
    var usedNames = Set<String>()
    usedNames.reserveCapacity(count)
    let hostileSlots = config.hostileFixtures ? hostileIndices(count: count) : [:]
    var nextID = 10_000 + rng.below(5000)
    for i in 0..<count {
      // Every owner gets one repository first; the rest go mostly to a few busy owners.
      let ownerIndex = i < owners.count ? i : Int(Double(owners.count) * pow3(rng.unit()))
      nextID += 1 + rng.below(9000)
      let repo: CatalogRepository
      if let payload = hostileSlots[i] {
        repo = hostileRepository(
          id: nextID, ownerIndex: ownerIndex, payload: payload, used: &usedNames, owners)
      } else {
        repo = makeRepository(id: nextID, ownerIndex: ownerIndex, used: &usedNames, owners)
      }
      owners[ownerIndex].repositoryIndices.append(repos.count)
      repos.append(repo)
    }
    if config.hostileNames { applyHostileNames(&owners, &repos) }
    PrivateRepositories.append(config, &owners, &repos, used: &usedNames)
    return (owners, repos)
  }

  /// Renames a few low-star repositories (never in a top-1000 star list) and one owner to XSS payloads.
  /// It draws nothing from the generator, so the rest of the catalog is the same with or without it.
  private func applyHostileNames(_ owners: inout [CatalogOwner], _ repos: inout [CatalogRepository]) {
    let count = repos.count
    let wanted = V.xssNamePayloads.count + 1
    var picked: [Int] = []
    for step in 0..<count where picked.count < wanted {
      let i = (count / 2 + step) % count
      let r = repos[i]
      if r.stars < 10 && !r.fork && owners[r.ownerIndex].repositoryIndices.count == 1 { picked.append(i) }
    }
    for (k, i) in picked.enumerated() {
      let r = repos[i]
      if k < V.xssNamePayloads.count {
        repos[i] = r.replacing(
          name: V.xssNamePayloads[k],
          description: "XSS name fixture: this repository's name carries a payload (must render as text)")
      } else {
        let o = owners[r.ownerIndex]
        owners[r.ownerIndex] = CatalogOwner(
          id: o.id, login: V.xssLoginPayload, isOrganization: o.isOrganization,
          repositoryIndices: o.repositoryIndices)
        repos[i] = r.replacing(
          name: r.name,
          description: "XSS login fixture: this owner's login carries a payload (must render as text)")
      }
    }
  }

  private func pow3(_ x: Double) -> Double { x * x * x }

  private mutating func makeOwners(count: Int) -> [CatalogOwner] {
    var owners: [CatalogOwner] = []
    owners.reserveCapacity(count)
    var seen = Set<String>()
    var id = 1000 + rng.below(1000)
    for i in 0..<count {
      let isOrg = rng.chance(0.25)
      var login = word(syllables: 2 + rng.below(2))
      if isOrg {
        login += "-" + V.orgSuffixes[rng.below(V.orgSuffixes.count)]
      } else if rng.chance(0.4) {
        login += String(rng.below(1000))
      } else if rng.chance(0.3) {
        login += "-" + word(syllables: 1 + rng.below(2))
      }
      if config.hostileFixtures && i == count / 3 { login = "onerror-img-x" }
      if rng.chance(0.3), let f = login.first { login = f.uppercased() + login.dropFirst() }
      login = String(login.prefix(35))
      while seen.contains(login.lowercased()) { login += String(rng.below(10)) }
      seen.insert(login.lowercased())
      id += 1 + rng.below(40_000)
      owners.append(CatalogOwner(id: id, login: login, isOrganization: isOrg))
    }
    return owners
  }

  private mutating func word(syllables n: Int) -> String {
    var s = ""
    for _ in 0..<n { s += V.syllables[rng.below(V.syllables.count)] }
    return s
  }

  private mutating func hostileIndices(count: Int) -> [Int: String] {
    var slots: [Int: String] = [:]
    guard count > 0 else { return slots }
    for (k, payload) in V.xssPayloads.enumerated() {
      slots[(k * 7919 + 13) % count] = payload
    }
    return slots
  }

  private mutating func uniqueName(_ base: String, owner: String, used: inout Set<String>) -> String {
    var name = String(base.prefix(90))
    while used.contains(owner.lowercased() + "/" + name.lowercased()) { name += "-" + String(rng.below(100)) }
    used.insert(owner.lowercased() + "/" + name.lowercased())
    return name
  }

  private mutating func makeName() -> String {
    let noun = V.nouns[rng.below(V.nouns.count)]
    let adj = V.adjectives[rng.below(V.adjectives.count)]
    switch rng.below(8) {
    case 0: return adj + "-" + noun
    case 1: return noun + "." + ["js", "py", "rs", "go", "swift"][rng.below(5)]
    case 2:
      return adj.prefix(1).uppercased() + adj.dropFirst() + noun.prefix(1).uppercased() + noun.dropFirst()
    case 3: return noun + "_" + word(syllables: 1)
    case 4: return word(syllables: 2) + "-" + noun
    case 5: return noun
    case 6: return "awesome-" + noun
    default: return noun + "-" + noun + String(rng.below(10))
    }
  }

  private mutating func makeDescription(theme: CatalogTheme?, language: String?) -> String? {
    let roll = rng.unit()
    if roll < 0.07 { return nil }
    if roll < 0.09 { return "" }
    let noun = theme.map { $0.phrases[rng.below($0.phrases.count)] } ?? V.nouns[rng.below(V.nouns.count)]
    let adj = V.adjectives[rng.below(V.adjectives.count)]
    let domain = V.domains[rng.below(V.domains.count)]
    let article = adj.first.map { "aeiou".contains($0) } == true ? "An" : "A"
    var text = "\(article) \(adj) \(noun) for \(domain)"
    if let language { text += " written in \(language)" }
    let extra = rng.unit()
    if extra < 0.05 {
      text += ". Now with <b>bold</b> claims & <i>\"quoted\"</i> features"
    } else if extra < 0.10 {
      text += " — \"it just works\", they said; it's O'Reilly-approved"
    } else if extra < 0.17 {
      text = V.emoji[rng.below(V.emoji.count)] + " " + text + " " + V.emoji[rng.below(V.emoji.count)]
    } else if extra < 0.19 {
      var long = text + "."
      let sentences = 12 + rng.below(20)
      for _ in 0..<sentences {
        long +=
          " It supports \(V.adjectives[rng.below(V.adjectives.count)]) \(V.nouns[rng.below(V.nouns.count)])"
        long += " integration for \(V.domains[rng.below(V.domains.count)])."
      }
      if rng.chance(0.3) { long += " " + String(repeating: "Supercalifragilistic", count: 8) }
      return long
    }
    return text + "."
  }

  private mutating func makeTopics(theme: CatalogTheme?, language: String?) -> [String] {
    // Themed projects are tagged more often, as maintained libraries are.
    let n = rng.chance(theme == nil ? 0.3 : 0.15) ? 0 : 1 + rng.below(6)
    var topics: [String] = []
    if let language, rng.chance(0.5) {
      let t = language.lowercased().replacingSpacesAndSymbols()
      if !t.isEmpty { topics.append(t) }
    }
    if n > 0, let theme, language == "Swift", theme.serverSide, rng.chance(0.6) {
      topics.append("server-side-swift")
    }
    while topics.count < n {
      let list = theme.map { rng.chance(0.75) ? $0.topics : V.topics } ?? V.topics
      let t = list[rng.below(list.count)]
      if !topics.contains(t) { topics.append(t) }
    }
    return topics
  }

  /// A theme for a share of repositories (by per-mille weight); nil for the generic rest.
  private mutating func pickTheme() -> CatalogTheme? {
    var r = rng.below(1000)
    for theme in CatalogTheme.all {
      if r < theme.weight { return theme }
      r -= theme.weight
    }
    return nil
  }

  private mutating func pickLanguage(theme: CatalogTheme?) -> String? {
    if let theme, !theme.languages.isEmpty, rng.chance(theme.languageBias) {
      return theme.languages[rng.below(theme.languages.count)]
    }
    return pickLanguage()
  }

  private mutating func makeThemedName(_ theme: CatalogTheme, language: String?) -> String {
    let stem = theme.stems[rng.below(theme.stems.count)]
    let suffix = language.map { $0.lowercased().replacingSpacesAndSymbols() } ?? ""
    switch rng.below(7) {
    case 0: return V.adjectives[rng.below(V.adjectives.count)] + "-" + stem
    case 1: return suffix.isEmpty ? stem : stem + "-" + suffix
    case 2: return suffix.isEmpty ? stem : suffix + "-" + stem
    case 3: return word(syllables: 2) + "-" + stem
    case 4: return word(syllables: 1 + rng.below(2)).capitalizedFirst + stem.capitalizedFirst
    default: return stem
    }
  }

  private mutating func pickLanguage() -> String? {
    let total = V.languages.reduce(0) { $0 + $1.1 }
    var r = rng.below(total + 12)
    if r >= total { return nil }
    for (name, w) in V.languages {
      if r < w { return name }
      r -= w
    }
    return nil
  }

  /// Stars follow a Pareto law (alpha 0.75): most repositories have a handful, a few have 100k+.
  /// `boost` stretches the curve for maintained projects of popular themes; a zero stays a zero.
  private mutating func pickStars(fork: Bool, boost: Double) -> Int {
    let u = max(rng.unit(), 1e-12)
    let raw = (1.0 / pow075(u) - 1) * boost + 1
    let stars = Int(min(raw, 450_000)) - 1
    return fork ? stars / 25 : stars
  }

  private func pow075(_ u: Double) -> Double {
    // u^(1/0.75) = u^(4/3), without Foundation.
    let cbrt = cubeRoot(u)
    return u * cbrt
  }

  private func cubeRoot(_ x: Double) -> Double {
    guard x > 0 else { return 0 }
    var y = x > 1 ? x / 3 : max(x, 0.5)
    for _ in 0..<40 { y = y - (y * y * y - x) / (3 * y * y) }
    return y
  }

  private mutating func makeDates() -> (Int, Int, Int) {
    let start = 1_204_329_600  // 2008-03-01
    let end = config.referenceTime
    // Skew creation towards recent years, as on GitHub.
    let f = 1 - pow3(1 - rng.unit()) * 0.999
    let created = start + Int(Double(end - start - 86400) * (1 - (1 - f) * (1 - f)))
    let pushed = created + Int(Double(end - created) * rng.unit())
    let updated = min(end, pushed + Int(Double(end - pushed) * rng.unit()))
    return (created, updated, pushed)
  }

  private mutating func makeRepository(
    id: Int, ownerIndex: Int, used: inout Set<String>, _ owners: [CatalogOwner]
  ) -> CatalogRepository {
    let fork = rng.chance(0.08)
    let theme = pickTheme()
    let language = pickLanguage(theme: theme)
    let base = theme.map { makeThemedName($0, language: language) } ?? makeName()
    let name = uniqueName(base, owner: owners[ownerIndex].login, used: &used)
    let description = makeDescription(theme: theme, language: language)
    let topics = makeTopics(theme: theme, language: language)
    // Half of a theme's repositories are maintained projects that draw its extra attention.
    let boost = theme.map { rng.chance(0.5) ? $0.starBoost : 1 } ?? 1
    let stars = pickStars(fork: fork, boost: boost)
    let forks = Int(Double(stars) * (0.02 + 0.3 * rng.unit())) + rng.below(3)
    let openIssues = rng.below(max(1, stars / 40 + 3))
    let helpWanted = rng.chance(0.2) ? rng.below(openIssues + 1) : 0
    let (born, updated, pushed) = makeDates()
    let created = oldEnough(born, stars: stars)
    let homepage: String? =
      rng.chance(0.3)
      ? (rng.chance(0.5) ? "" : nil) : (rng.chance(0.5) ? "https://\(name.lowercased()).dev" : nil)
    return CatalogRepository(
      id: id, ownerIndex: ownerIndex, name: name, description: description, topics: topics,
      language: language, stars: stars, forks: forks, openIssues: openIssues, helpWantedIssues: helpWanted,
      size: rng.below(200_000), createdAt: created, updatedAt: updated, pushedAt: pushed, fork: fork,
      archived: rng.chance(0.04), licenseIndex: rng.chance(0.25) ? nil : rng.below(V.licenses.count),
      homepage: homepage, defaultBranch: rng.chance(0.8) ? "main" : "master", hasPages: rng.chance(0.1))
  }

  /// `created`, or earlier when that is too young for `stars`: big repositories are old ones, so that
  /// their star history (`StarHistory`) can be a plausible one.
  private func oldEnough(_ created: Int, stars: Int) -> Int {
    min(created, config.referenceTime - StarHistory.minimumLife(stars: stars))
  }

  /// A repository whose text fields carry an XSS payload but whose name stays valid.
  private mutating func hostileRepository(
    id: Int, ownerIndex: Int, payload: String, used: inout Set<String>, _ owners: [CatalogOwner]
  ) -> CatalogRepository {
    let base = makeRepository(id: id, ownerIndex: ownerIndex, used: &used, owners)
    let name = uniqueName("xss-fixture-" + base.name, owner: owners[ownerIndex].login, used: &used)
    let stars = 5000 + rng.below(60_000)
    return CatalogRepository(
      id: id, ownerIndex: ownerIndex, name: name,
      description: "XSS fixture for web apps: " + payload + " (must render as text)",
      topics: ["xss", "web", "javascript", payload], language: "JavaScript", stars: stars,
      forks: 300 + rng.below(2000), openIssues: rng.below(50), helpWantedIssues: rng.below(5),
      size: base.size,
      createdAt: oldEnough(base.createdAt, stars: stars), updatedAt: base.updatedAt, pushedAt: base.pushedAt,
      fork: false, archived: false, licenseIndex: 0, homepage: "javascript:window.__xss=1",
      defaultBranch: "main",
      hasPages: false)
  }
}

extension CatalogRepository {
  /// The same repository under another name and description.
  func replacing(name: String, description: String) -> CatalogRepository {
    CatalogRepository(
      id: id, ownerIndex: ownerIndex, name: name, description: description, topics: topics,
      language: language, stars: stars, forks: forks, openIssues: openIssues,
      helpWantedIssues: helpWantedIssues,
      size: size, createdAt: createdAt, updatedAt: updatedAt, pushedAt: pushedAt, fork: fork,
      archived: archived,
      licenseIndex: licenseIndex, homepage: homepage, defaultBranch: defaultBranch, hasPages: hasPages)
  }
}

extension String {
  /// "server" -> "Server", for CamelCase repository names.
  var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }

  /// "Jupyter Notebook" -> "jupyter-notebook", "C++" -> "cpp", "C#" -> "csharp": a valid topic.
  func replacingSpacesAndSymbols() -> String {
    var out = ""
    for ch in self {
      switch ch {
      case " ": out.append("-")
      case "+": out.append("p")
      case "#": out += "sharp"
      case "a"..."z", "0"..."9", "-": out.append(ch)
      default: break
      }
    }
    return out
  }
}
