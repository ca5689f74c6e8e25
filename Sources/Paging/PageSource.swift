/// One upstream page as a source returns it.
public struct SourcePage<Item: Sendable>: Sendable {
  /// The items on this page, in upstream order (may repeat ids seen on earlier pages).
  public var items: [Item]
  /// How many results the upstream says exist in total (may exceed `resultCap`).
  public var totalCount: Int
  /// The most results the upstream will ever hand out (GitHub search: 1000); nil means no cap.
  public var resultCap: Int?
  /// True when the upstream says this page may be missing results (e.g. its search timed out).
  public var incomplete: Bool

  /// Creates a page.
  public init(items: [Item], totalCount: Int, resultCap: Int? = nil, incomplete: Bool = false) {
    self.items = items
    self.totalCount = totalCount
    self.resultCap = resultCap
    self.incomplete = incomplete
  }
}

/// A paginated upstream that `PagedList` turns into cursor-addressed batches.
///
/// Pages are numbered from 1 and hold up to `upstreamPageSize` items. A short page does not end the
/// list (real upstreams answer short pages mid-list); an empty page, the total count or the result
/// cap does.
/// Sources are expected to cache pages, because a batch re-reads earlier pages to de-duplicate (all of
/// them from page 1, or only those its items come from with a `ListIndex`).
public protocol PageSource: Sendable {
  /// The element type; ids de-duplicate items across shifting upstream pages.
  associatedtype Item: Identifiable & Sendable where Item.ID: Sendable
  /// Items per upstream page (every page but the last is this full).
  var upstreamPageSize: Int { get }
  /// Fetches page `number` (1-based); `reload` asks to bypass any fresh cache.
  func fetchPage(_ number: Int, reload: Bool) async throws -> SourcePage<Item>
  /// A number taken from each page whose largest value over the pages up to a batch the batch reports
  /// (`ListBatch.peak`), e.g. the largest star count; batches need not read those pages for it.
  func peak(of page: SourcePage<Item>) -> Int
}

extension PageSource {
  /// 0: nothing measured.
  public func peak(of page: SourcePage<Item>) -> Int { 0 }
}
