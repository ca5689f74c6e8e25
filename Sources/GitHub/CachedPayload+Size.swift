import Packing

/// What a cached payload occupies in memory, roughly: the cache bound is about the process's memory,
/// so entries are charged for the values kept, not for the JSON they came from (a 100-item search
/// page is ~530 KB of JSON, most of it URLs the models drop, but far less once decoded).
extension SearchPage {
  /// Estimated bytes held by this page: string bytes plus per-value overheads.
  var estimatedBytes: Int {
    var total = 128
    for item in items { total += PayloadSize.repositoryOverhead + item.record.byteCount }
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
  /// A repository's object and allocation headers, and the array slot holding it (its block is
  /// counted by its length).
  static let repositoryOverhead = 64
  /// A week: its fields and an array of 7 daily counts.
  static let weekOverhead = 48 + 32 + 7 * 8

  /// A string's bytes plus its allocation header (small strings stay inline, which this overstates).
  static func string(_ value: String) -> Int { value.utf8.count + 32 }
}
