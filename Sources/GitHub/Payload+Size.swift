/// What a cached payload occupies in memory, roughly: the cache bound is about the process's memory,
/// so entries are charged for the values kept, not for the JSON they came from (a 100-item search
/// page is ~530 KB of JSON, most of it URLs the models drop, but far less once decoded).
extension Payload {
  /// Estimated bytes held by this payload: string bytes plus per-value overheads.
  var estimatedBytes: Int {
    switch self {
    case .search(let page):
      var total = 128 + page.items.count * Self.repositoryOverhead
      for item in page.items { total += item.estimatedStringBytes }
      for (rel, url) in page.links { total += Self.string(rel) + Self.string(url) }
      return total
    case .history(let history):
      return 64 + history.weeks.count * (Self.weekOverhead + Self.string(history.weeks.first?.week ?? ""))
    case .count:
      return 16
    case .avatar(let avatar):
      return 64 + avatar.bytes.count + Self.string(avatar.contentType) + Self.string(avatar.etag ?? "")
    }
  }

  /// A repository's fixed fields, its optional owner and the array slot holding it.
  static let repositoryOverhead = 320
  /// A week: its fields and an array of 7 daily counts.
  static let weekOverhead = 48 + 32 + 7 * 8

  /// A string's bytes plus its allocation header (small strings stay inline, which this overstates).
  static func string(_ value: String) -> Int { value.utf8.count + 32 }
}

extension Repository {
  fileprivate var estimatedStringBytes: Int {
    var total = Payload.string(name) + Payload.string(fullName) + Payload.string(htmlURL)
    total += Payload.string(createdAt) + Payload.string(updatedAt)
    for optional in [description, language, license, pushedAt, homepage] {
      if let value = optional { total += Payload.string(value) }
    }
    for topic in topics { total += Payload.string(topic) }
    if let owner {
      total += Payload.string(owner.login) + Payload.string(owner.avatarURL) + Payload.string(owner.htmlURL)
      total += Payload.string(owner.type)
    }
    return total
  }
}
