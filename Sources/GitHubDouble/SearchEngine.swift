#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The sort keys GitHub's repository search accepts; nil means best match.
public enum DoubleSearchSort: String, Sendable {
  /// By stargazers.
  case stars
  /// By forks.
  case forks
  /// By open "help wanted" issues.
  case helpWantedIssues = "help-wanted-issues"
  /// By last update.
  case updated
}

/// One search hit: the repository index, its relevance score and precomputed sort keys.
struct SearchHit {
  var index: Int
  var score: Double
  var primary: Int
  var secondary: Int
  var id: Int
}

/// Runs parsed queries over a catalog: filtering, relevance and ordering.
struct SearchEngine {
  let catalog: Catalog

  /// All hits for `query`, ordered as GitHub would return them. Private repositories are left out
  /// unless `viewer` may see them (`Catalog.isVisible`). `moved` holds the star counts that drifted
  /// from the catalog's (by repository index).
  func search(
    _ query: SearchQuery, sort: DoubleSearchSort?, ascending: Bool, viewer: DoubleViewer = .everyone,
    moved: [Int: Int] = [:]
  )
    -> [SearchHit]
  {
    let terms = query.terms.map { Catalog.cString($0) }.filter { $0.count > 1 }
    let ownerFilter = ownerIndices(query)
    if ownerFilter?.isEmpty == true { return [] }
    let c = catalog.columns
    var hits: [SearchHit] = []
    let candidates: [Int] =
      ownerFilter.map { set in set.flatMap { catalog.owners[$0].repositoryIndices } }
      ?? Array(0..<(viewer.seesPrivate ? catalog.repositories.count : catalog.publicCount))
    for i in candidates {
      let stars = moved.isEmpty ? c.stars[i] : moved[i] ?? c.stars[i]
      if !catalog.isVisible(i, to: viewer) || !passesFilters(i, query, stars: stars) { continue }
      var score = 1.0
      if !terms.isEmpty {
        guard let s = relevance(i, terms, query.fields) else { continue }
        score = s
      }
      let primary: Int
      switch sort {
      case .none: primary = Int(score * 1000)
      case .stars: primary = stars
      case .forks: primary = c.forks[i]
      case .helpWantedIssues: primary = c.helpWanted[i]
      case .updated: primary = c.updated[i]
      }
      hits.append(SearchHit(index: i, score: score, primary: primary, secondary: stars, id: c.ids[i]))
    }
    // Best match ignores `order`, like GitHub: relevance, then stars, then id.
    let up = sort != nil && ascending
    hits.sort { a, b in
      if a.primary != b.primary { return up ? a.primary < b.primary : a.primary > b.primary }
      if sort == nil && a.secondary != b.secondary { return a.secondary > b.secondary }
      return a.id < b.id
    }
    return hits
  }

  /// The hits of `query` among `hits` (the hits of the same query without its ranges): its ranges on
  /// stars, forks, help-wanted issues and creation time applied, the order kept.
  func within(_ query: SearchQuery, _ hits: [SearchHit]) -> [SearchHit] {
    let c = catalog.columns
    return hits.filter { hit in
      let i = hit.index
      return (query.stars?.contains(c.stars[i]) ?? true) && (query.forks?.contains(c.forks[i]) ?? true)
        && (query.helpWanted?.contains(c.helpWanted[i]) ?? true)
        && (query.created?.contains(c.created[i]) ?? true)
    }
  }

  private func ownerIndices(_ q: SearchQuery) -> [Int]? {
    if q.users.isEmpty && q.orgs.isEmpty { return nil }
    var result: [Int] = []
    for login in q.users { if let o = catalog.ownerIndex(login: login) { result.append(o) } }
    for login in q.orgs {
      if let o = catalog.ownerIndex(login: login), catalog.owners[o].isOrganization { result.append(o) }
    }
    return Array(Set(result)).sorted()
  }

  private func passesFilters(_ i: Int, _ q: SearchQuery, stars: Int) -> Bool {
    let c = catalog.columns
    switch q.fork {
    case .exclude: if c.isFork[i] { return false }
    case .only: if !c.isFork[i] { return false }
    case .include: break
    }
    if let a = q.archived, c.archived[i] != a { return false }
    if let s = q.stars, !s.contains(stars) { return false }
    if let f = q.forks, !f.contains(c.forks[i]) { return false }
    if let h = q.helpWanted, !h.contains(c.helpWanted[i]) { return false }
    if let s = q.size, !s.contains(c.size[i]) { return false }
    if let d = q.created, !d.contains(c.created[i]) { return false }
    if let d = q.pushed, !d.contains(c.pushed[i]) { return false }
    if !q.languages.isEmpty {
      guard let lang = catalog.lowerLanguage[i], q.languages.contains(lang) else { return false }
    }
    if !q.topics.isEmpty {
      let topics = catalog.repositories[i].topics
      for t in q.topics where !topics.contains(where: { $0.lowercased() == t }) { return false }
    }
    return true
  }

  /// Sum of per-term weights (name beats topics beats description); nil when a term misses.
  private func relevance(_ i: Int, _ terms: [[CChar]], _ fields: SearchQuery.Fields) -> Double? {
    var score = 0.0
    for term in terms {
      var best = 0.0
      if fields.contains(.name) {
        let name = catalog.nameText[i]
        if name == term {
          best = 12
        } else if SearchEngine.contains(name, term) {
          best = 8
        }
      }
      if best < 4 && fields.contains(.topics) && SearchEngine.contains(catalog.topicText[i], term) {
        best = 4
      }
      if best < 2 && fields.contains(.description) && SearchEngine.contains(catalog.descriptionText[i], term)
      {
        best = 2
      }
      if best == 0 { return nil }
      score += best
    }
    return score
  }

  /// Substring test on NUL-terminated buffers via `strstr`, which is fast even in debug builds.
  static func contains(_ haystack: [CChar], _ needle: [CChar]) -> Bool {
    if needle.count <= 1 { return true }
    if needle.count > haystack.count { return false }
    // Both arrays end in NUL (built by Catalog.cString) and are only read inside the closures.
    return haystack.withUnsafeBufferPointer { h in
      needle.withUnsafeBufferPointer { n in
        guard let hp = h.baseAddress, let np = n.baseAddress else { return false }
        return strstr(hp, np) != nil
      }
    }
  }
}
