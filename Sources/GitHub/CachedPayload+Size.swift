/// What a cached payload occupies in memory, roughly: the cache bound is about the process's memory,
/// so entries are charged for the values kept, not for the JSON they came from (a 100-item search
/// page is ~530 KB of JSON, most of it URLs the models drop, but far less once decoded).
extension SearchPage {
  /// Estimated bytes held by this page: string bytes plus per-value overheads.
  var estimatedBytes: Int {
    var total = 128 + items.count * PayloadSize.repositoryOverhead
    for item in items { total += item.estimatedStringBytes }
    for (rel, url) in links { total += PayloadSize.string(rel) + PayloadSize.string(url) }
    return total
  }
}

extension StarHistory {
  /// Estimated bytes held by this history: a fixed cost per week.
  var estimatedBytes: Int {
    64 + weeks.count * (PayloadSize.weekOverhead + PayloadSize.string(weeks.first?.week ?? ""))
  }
}

extension Avatar {
  /// Estimated bytes held by this avatar: its image bytes and strings.
  var estimatedBytes: Int {
    64 + bytes.count + PayloadSize.string(contentType) + PayloadSize.string(etag ?? "")
  }
}

/// The per-value overheads the estimates use.
enum PayloadSize {
  /// A repository's fixed fields, its optional owner and the array slot holding it.
  static let repositoryOverhead = 320
  /// A week: its fields and an array of 7 daily counts.
  static let weekOverhead = 48 + 32 + 7 * 8

  /// A string's bytes plus its allocation header (small strings stay inline, which this overstates).
  static func string(_ value: String) -> Int { value.utf8.count + 32 }
}

extension Repository {
  fileprivate var estimatedStringBytes: Int {
    var total = PayloadSize.string(name) + PayloadSize.string(fullName) + PayloadSize.string(htmlURL)
    total += PayloadSize.string(createdAt) + PayloadSize.string(updatedAt)
    for optional in [description, language, license, pushedAt, homepage] {
      if let value = optional { total += PayloadSize.string(value) }
    }
    for topic in topics { total += PayloadSize.string(topic) }
    if let owner {
      total +=
        PayloadSize.string(owner.login) + PayloadSize.string(owner.avatarURL)
        + PayloadSize.string(owner.htmlURL)
      total += PayloadSize.string(owner.type)
    }
    return total
  }
}
