import Paging

/// A repository-like test item.
struct Row: Identifiable, Sendable, Equatable {
  let id: Int
}

/// Errors the test sources throw.
enum SourceFailure: Error, Equatable {
  case rateLimited(until: Int)
  case broken
}

/// A caching page source over fixed upstream pages that records every upstream fetch.
actor CachingSource: PageSource {
  nonisolated let upstreamPageSize: Int
  private var pages: [[Row]]
  private let totalCount: Int
  private let resultCap: Int?
  private var cache: [Int: SourcePage<Row>] = [:]
  private var failures: [Int: SourceFailure] = [:]
  /// Page numbers fetched upstream (cache misses and reloads), in order.
  private(set) var upstreamFetches: [Int] = []
  /// Page numbers requested with reload = true.
  private(set) var reloads: [Int] = []
  /// Every page number asked for, from the cache or not, in order.
  private(set) var reads: [Int] = []

  init(pages: [[Row]], pageSize: Int, totalCount: Int, resultCap: Int? = nil) {
    self.pages = pages
    self.upstreamPageSize = pageSize
    self.totalCount = totalCount
    self.resultCap = resultCap
  }

  /// `count` sequential ids split into full pages, like a stable upstream.
  init(count: Int, pageSize: Int, totalCount: Int, resultCap: Int? = nil) {
    let ids = Array(1...max(1, count)).prefix(count)
    let pages = stride(from: 0, to: ids.count, by: pageSize).map { start in
      ids[start..<min(start + pageSize, ids.count)].map(Row.init(id:))
    }
    self.init(pages: pages, pageSize: pageSize, totalCount: totalCount, resultCap: resultCap)
  }

  /// Makes the next fetch of `page` throw `failure` once.
  func failOnce(page: Int, with failure: SourceFailure) {
    failures[page] = failure
  }

  /// Changes page `number` upstream and drops it from the cache (as a cache expiry would).
  func change(page number: Int, to rows: [Row]) {
    pages[number - 1] = rows
    cache[number] = nil
  }

  /// Forgets which pages were read.
  func clearReads() {
    reads = []
  }

  func fetchPage(_ number: Int, reload: Bool) async throws -> SourcePage<Row> {
    reads.append(number)
    if reload { reloads.append(number) }
    if !reload, let hit = cache[number] { return hit }
    if let failure = failures.removeValue(forKey: number) { throw failure }
    upstreamFetches.append(number)
    let items = number >= 1 && number <= pages.count ? pages[number - 1] : []
    let page = SourcePage(items: items, totalCount: totalCount, resultCap: resultCap)
    cache[number] = page
    return page
  }
}

/// A second, unrelated source: words from a dictionary, no cap, odd page size.
struct WordSource: PageSource {
  struct Word: Identifiable, Sendable, Equatable {
    var id: String { text }
    let text: String
  }
  let words: [String]
  var upstreamPageSize: Int { 7 }

  func fetchPage(_ number: Int, reload: Bool) async throws -> SourcePage<Word> {
    let start = (number - 1) * upstreamPageSize
    let slice = start < words.count ? words[start..<min(start + upstreamPageSize, words.count)] : []
    return SourcePage(items: slice.map(Word.init(text:)), totalCount: words.count)
  }
}

/// Walks a list from cursor 0 to its end and returns every batch.
func walk<S: PageSource>(_ list: PagedList<S>, limit: Int = 500) async -> [ListBatch<S.Item>] {
  var batches: [ListBatch<S.Item>] = []
  var cursor: Int? = 0
  while let next = cursor, batches.count < limit {
    let batch = await list.batch(after: next)
    batches.append(batch)
    cursor = batch.nextCursor
  }
  return batches
}
