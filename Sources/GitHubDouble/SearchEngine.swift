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

/// One search hit: the repository index and its relevance score.
struct SearchHit {
  var index: Int
  var score: Double
}

/// Runs parsed queries over a catalog: filtering, relevance and ordering.
struct SearchEngine {
  let catalog: Catalog

  /// All hits for `query`, ordered as GitHub would return them.
  func search(_ query: SearchQuery, sort: DoubleSearchSort?, ascending: Bool) -> [SearchHit] {
    let terms = query.terms.map { Array($0.utf8) }
    let ownerFilter = ownerIndices(query)
    if ownerFilter?.isEmpty == true { return [] }
    var hits: [SearchHit] = []
    let candidates: [Int] =
      ownerFilter.map { set in set.flatMap { catalog.owners[$0].repositoryIndices } }
      ?? Array(catalog.repositories.indices)
    for i in candidates {
      let r = catalog.repositories[i]
      if !passesFilters(r, i, query) { continue }
      var score = 1.0
      if !terms.isEmpty {
        guard let s = relevance(i, terms, query.fields) else { continue }
        score = s
      }
      hits.append(SearchHit(index: i, score: score))
    }
    order(&hits, sort: sort, ascending: ascending)
    return hits
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

  private func passesFilters(_ r: CatalogRepository, _ i: Int, _ q: SearchQuery) -> Bool {
    switch q.fork {
    case .exclude: if r.fork { return false }
    case .only: if !r.fork { return false }
    case .include: break
    }
    if let a = q.archived, r.archived != a { return false }
    if let s = q.stars, !s.contains(r.stars) { return false }
    if let f = q.forks, !f.contains(r.forks) { return false }
    if !q.languages.isEmpty {
      guard let lang = catalog.lowerLanguage[i], q.languages.contains(lang) else { return false }
    }
    for t in q.topics where !r.topics.contains(where: { $0.lowercased() == t }) { return false }
    return true
  }

  /// Sum of per-term weights (name beats topics beats description); nil when a term misses.
  private func relevance(_ i: Int, _ terms: [[UInt8]], _ fields: SearchQuery.Fields) -> Double? {
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

  private func order(_ hits: inout [SearchHit], sort: DoubleSearchSort?, ascending: Bool) {
    let repos = catalog.repositories
    guard let sort else {
      // Best match ignores `order`, like GitHub: relevance, then stars, then id.
      hits.sort { a, b in
        if a.score != b.score { return a.score > b.score }
        let sa = repos[a.index].stars
        let sb = repos[b.index].stars
        if sa != sb { return sa > sb }
        return repos[a.index].id < repos[b.index].id
      }
      return
    }
    let key: (CatalogRepository) -> Int
    switch sort {
    case .stars: key = { $0.stars }
    case .forks: key = { $0.forks }
    case .helpWantedIssues: key = { $0.helpWantedIssues }
    case .updated: key = { $0.updatedAt }
    }
    hits.sort { a, b in
      let ka = key(repos[a.index])
      let kb = key(repos[b.index])
      if ka != kb { return ascending ? ka < kb : ka > kb }
      return repos[a.index].id < repos[b.index].id
    }
  }

  /// Byte substring search: scans for the first byte, then compares the rest.
  static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    let n = needle.count
    if n == 0 { return true }
    if n > haystack.count { return false }
    // Both buffers are only read inside these closures, within their bounds (i + n <= h.count).
    return haystack.withUnsafeBufferPointer { h in
      needle.withUnsafeBufferPointer { nd in
        let first = nd[0]
        var i = 0
        let lastStart = h.count - n
        while i <= lastStart {
          if h[i] == first {
            var j = 1
            while j < n && h[i + j] == nd[j] { j += 1 }
            if j == n { return true }
          }
          i += 1
        }
        return false
      }
    }
  }
}
