/// Turns a `PageSource` into fixed-size, de-duplicated, cursor-addressed batches.
///
/// The de-duplicated sequence is the concatenation of upstream pages 1…p in which an id already seen
/// earlier is dropped. The list keeps no state between calls (so it is a plain `Sendable` value): each
/// batch walks pages from 1, which with a caching source costs one upstream fetch per page overall.
/// It never asks for a page past the result cap or past the total count. The list ends on an empty
/// page, at the total count or at the cap, whichever comes first; a short page does not end it,
/// because upstreams (GitHub search) answer short pages mid-list. The total used is the largest any
/// page reported, so `aria-setsize` never shrinks mid-list when a later page reports less.
public struct PagedList<Source: PageSource>: Sendable {
  /// The upstream.
  public let source: Source
  /// Items per batch (at least 1).
  public let batchSize: Int
  /// Maps an error thrown by the source to a presentable `ListError`.
  public let classify: @Sendable (any Error) -> ListError

  /// Pages in a row that may add nothing new before the list is considered ended (guards bad sources).
  @usableFromInline static var maxBarrenPages: Int { 3 }

  /// Creates a list over `source`.
  public init(
    source: Source, batchSize: Int = 20,
    classify: @escaping @Sendable (any Error) -> ListError = ListError.generic
  ) {
    self.source = source
    self.batchSize = max(1, batchSize)
    self.classify = classify
  }

  /// The batch of items `[cursor, cursor + batchSize)`; `reload` bypasses caches for pages that can
  /// contribute items to this batch (pages read only to de-duplicate are left cached).
  /// Inlinable so that it is specialised for the caller's item type: generic code copies each item
  /// it reads, where specialised code reads only the id.
  @inlinable public func batch(after cursor: Int, reload: Bool = false) async -> ListBatch<Source.Item> {
    let cursor = max(0, cursor)
    let pageSize = max(1, source.upstreamPageSize)
    // Every id up to the batch is hashed; sized once so the set never rehashes on the way.
    var seen = Set<Source.Item.ID>(minimumCapacity: min(cursor + batchSize + pageSize, 1 << 16))
    var collected: [PositionedItem<Source.Item>] = []
    collected.reserveCapacity(batchSize)
    var distinct = 0
    var barren = 0
    var page = 1
    var limit = 0
    var largestTotal = 0
    var incomplete = false
    do {
      while true {
        let fetched = try await source.fetchPage(page, reload: reload && distinct + pageSize > cursor)
        largestTotal = max(largestTotal, fetched.totalCount)
        limit = max(limit, min(fetched.totalCount, fetched.resultCap ?? Int.max))
        incomplete = incomplete || fetched.incomplete
        var added = 0
        // By index: only the collected items are copied (a copy retains every reference they hold).
        for index in fetched.items.indices where seen.insert(fetched.items[index].id).inserted {
          if distinct >= cursor {
            if collected.count == batchSize {
              // A further distinct item exists, so the list certainly goes on.
              return ListBatch(
                cursor: cursor, items: collected, nextCursor: cursor + collected.count,
                total: limit, state: .items, incomplete: incomplete)
            }
            collected.append(PositionedItem(position: distinct + 1, item: fetched.items[index]))
          }
          distinct += 1
          added += 1
        }
        barren = added == 0 ? barren + 1 : 0
        let upstreamDone = fetched.items.isEmpty || page * pageSize >= limit || barren >= Self.maxBarrenPages
        if upstreamDone {
          let cap = fetched.resultCap.flatMap { largestTotal > $0 && page * pageSize >= $0 ? $0 : nil }
          var batch = finished(cursor: cursor, collected: collected, distinct: distinct, cappedAt: cap)
          batch.incomplete = incomplete
          return batch
        }
        if collected.count == batchSize {
          // Knowing whether more follow would cost another page; let the next batch find out.
          return ListBatch(
            cursor: cursor, items: collected, nextCursor: cursor + collected.count, total: limit,
            state: .items, incomplete: incomplete)
        }
        page += 1
      }
    } catch {
      return ListBatch(cursor: cursor, items: [], nextCursor: nil, total: 0, state: .error(classify(error)))
    }
  }

  /// The terminal batch once the upstream has nothing more to give; `cap` is set when the result cap,
  /// not the upstream's supply, stopped the list.
  @usableFromInline func finished(
    cursor: Int, collected: [PositionedItem<Source.Item>], distinct: Int, cappedAt cap: Int?
  ) -> ListBatch<Source.Item> {
    let state: ListState
    if distinct == 0 {
      state = .empty
    } else if let cap {
      state = .end(.capReached(cap))
    } else {
      state = .end(.noMoreResults(distinct))
    }
    return ListBatch(cursor: cursor, items: collected, nextCursor: nil, total: distinct, state: state)
  }
}
