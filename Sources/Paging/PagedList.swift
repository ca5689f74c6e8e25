/// Turns a `PageSource` into fixed-size, de-duplicated, cursor-addressed batches.
///
/// The de-duplicated sequence is the concatenation of upstream pages 1…p in which an id already seen
/// earlier is dropped. The list keeps no state between calls (so it is a plain `Sendable` value): each
/// batch walks pages from 1, which with a caching source costs one upstream fetch per page overall.
/// It never asks for a page past the result cap or past the total count. The list ends on an empty
/// page, at the total count or at the cap, whichever comes first; a short page does not end it,
/// because upstreams (GitHub search) answer short pages mid-list. The total used is the largest any
/// page reported, so `aria-setsize` never shrinks mid-list when a later page reports less.
///
/// ```swift
/// struct Numbers: PageSource {
///   struct Item: Identifiable, Sendable { var id: Int }
///   var upstreamPageSize: Int { 100 }
///   func fetchPage(_ number: Int, reload: Bool) async throws -> SourcePage<Item> {
///     SourcePage(items: (1...100).map { Item(id: ($0 + (number - 1) * 100)) }, totalCount: 250)
///   }
/// }
/// let list = PagedList(source: Numbers(), batchSize: 20)
/// let first = await list.batch(after: 0)  // items 1…20, nextCursor 20, state .items
/// let next = await list.batch(after: first.nextCursor ?? 0)
/// ```
public struct PagedList<Source: PageSource>: Sendable {
  /// The upstream.
  public let source: Source
  /// Items per batch (at least 1).
  public let batchSize: Int
  /// Maps an error thrown by the source to a presentable `ListError`.
  public let classify: @Sendable (any Error) -> ListError

  /// Pages in a row that may add nothing new before the list is considered ended (guards bad sources).
  static var maxBarrenPages: Int { 3 }

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
  /// contribute items to this batch (pages read only to de-duplicate are left cached). Walks from
  /// page 1.
  /// The release build specialises it for the caller's item type (cross-module optimisation, see
  /// Package.swift): generic code copies each item it reads, where specialised code reads only the id.
  public func batch(after cursor: Int, reload: Bool = false) async -> ListBatch<Source.Item> {
    let cursor = max(0, cursor)
    var seen = Set<Source.Item.ID>(minimumCapacity: seenCapacity(cursor))
    return await walk(after: cursor, reload: reload, from: 1, before: .init(), known: [], seen: &seen).batch
  }

  /// The same batch, reading only the pages its items come from when `index` knows the list `key`
  /// (and indexing the pages it reads otherwise). A reload drops the list from the index first.
  public func batch<Key>(
    after cursor: Int, reload: Bool = false, index: ListIndex<Key, Source.Item.ID>, key: Key
  ) async -> ListBatch<Source.Item> {
    let cursor = max(0, cursor)
    if reload {
      index.remove(key)
    } else if let plan = index.plan(key, cursor: cursor, batchSize: batchSize) {
      var seen = plan.seen
      let taken = seen != nil
      var ids = seen ?? []
      let result = await walk(
        after: cursor, reload: false, from: plan.page, before: plan.before, known: plan.known,
        seen: &ids, canExtend: taken)
      if taken { seen = ids }
      switch result.outcome {
      case .done:
        // A walk that did not take the ids read indexed pages only: it has nothing to record.
        if taken {
          index.extend(key, generation: plan.generation, pages: result.pages, seen: seen, ended: result.ended)
        }
        return result.batch
      case .failed:
        if taken {
          index.extend(key, generation: plan.generation, pages: result.pages, seen: seen, ended: false)
        }
        return result.batch
      case .stale:
        // An indexed page changed: the list is indexed again from page 1.
        index.remove(key)
      case .lent:
        // Another walk holds the ids needed to go past the indexed pages: walk from page 1.
        break
      }
    }
    var seen = Set<Source.Item.ID>(minimumCapacity: seenCapacity(cursor))
    let result = await walk(after: cursor, reload: reload, from: 1, before: .init(), known: [], seen: &seen)
    if case .done = result.outcome { index.store(key, pages: result.pages, seen: seen, ended: result.ended) }
    return result.batch
  }

  /// Every id up to the batch is hashed; sized once so the set never rehashes on the way.
  func seenCapacity(_ cursor: Int) -> Int {
    min(cursor + batchSize + max(1, source.upstreamPageSize), 1 << 16)
  }

  /// How a walk ended: with a batch to keep, with an error batch (pages indexed before the error are
  /// kept), on an indexed page that changed, or needing ids another walk holds.
  enum Outcome { case done, failed, stale, lent }

  /// A full batch of a list that goes on after it.
  func goingOn(
    cursor: Int, _ collected: [PositionedItem<Source.Item>], _ walked: WalkState
  ) -> ListBatch<Source.Item> {
    ListBatch(
      cursor: cursor, items: collected, nextCursor: cursor + collected.count, total: walked.limit,
      state: .items, incomplete: walked.incomplete, peak: walked.peak,
      reportedTotal: walked.largestTotal)
  }

  /// Walks pages from `first` (the state before it in `before`), reading the `known` pages' new items
  /// from the index and de-duplicating later ones through `seen`, and records each page it indexes.
  /// A walk from page 1 passes all pages through `seen`; a planned walk may go past its known pages
  /// only when `canExtend` (it holds the ids of all of them).
  func walk(
    after cursor: Int, reload: Bool, from first: Int, before: WalkState,
    known: ArraySlice<IndexedPage>, seen: inout Set<Source.Item.ID>,
    canExtend: Bool = true
  ) async -> (batch: ListBatch<Source.Item>, outcome: Outcome, pages: [IndexedPage], ended: Bool) {
    let pageSize = max(1, source.upstreamPageSize)
    var collected: [PositionedItem<Source.Item>] = []
    collected.reserveCapacity(batchSize)
    var walked = before
    var recorded: [IndexedPage] = []
    var page = first
    do {
      while true {
        let fetched = try await source.fetchPage(page, reload: reload && walked.distinct + pageSize > cursor)
        walked.largestTotal = max(walked.largestTotal, fetched.totalCount)
        walked.limit = max(walked.limit, min(fetched.totalCount, fetched.resultCap ?? Int.max))
        walked.incomplete = walked.incomplete || fetched.incomplete
        walked.peak = max(walked.peak, source.peak(of: fetched))
        var added = 0
        // Set when the batch is full and a further distinct item exists: the list certainly goes on.
        var more = false
        let offset = page - first
        if offset < known.count {
          let mark = known[known.startIndex + offset]
          guard mark.fingerprint == Self.fingerprint(fetched.items) else {
            return (
              ListBatch(cursor: cursor, items: [], nextCursor: nil, total: 0, state: .empty), .stale, [],
              false
            )
          }
          for fresh in mark.fresh {
            if walked.distinct >= cursor {
              if collected.count == batchSize {
                more = true
                break
              }
              collected.append(PositionedItem(position: walked.distinct + 1, item: fetched.items[Int(fresh)]))
            }
            walked.distinct += 1
            added += 1
          }
          if more { added = mark.fresh.count }
        } else {
          guard canExtend else {
            return (
              ListBatch(cursor: cursor, items: [], nextCursor: nil, total: 0, state: .empty), .lent, [], false
            )
          }
          var fresh: [Int32] = []
          // By index: only the collected items are copied (a copy retains every reference they hold).
          // The whole page is read even once the batch is full, so that its index entry is complete.
          for index in fetched.items.indices where seen.insert(fetched.items[index].id).inserted {
            fresh.append(Int32(truncatingIfNeeded: index))
            if walked.distinct >= cursor && !more {
              if collected.count == batchSize {
                more = true
              } else {
                collected.append(PositionedItem(position: walked.distinct + 1, item: fetched.items[index]))
              }
            }
            if !more { walked.distinct += 1 }
            added += 1
          }
          walked.barren = added == 0 ? walked.barren + 1 : 0
          // What follows the page in the index counts every new item on it.
          var after = walked
          after.distinct =
            (recorded.last?.after.distinct ?? known.last?.after.distinct ?? before.distinct) + fresh.count
          recorded.append(
            IndexedPage(fresh: fresh, fingerprint: Self.fingerprint(fetched.items), after: after))
        }
        if offset < known.count { walked.barren = added == 0 ? walked.barren + 1 : 0 }
        if more { return (goingOn(cursor: cursor, collected, walked), .done, recorded, false) }
        let upstreamDone =
          fetched.items.isEmpty || page * pageSize >= walked.limit || walked.barren >= Self.maxBarrenPages
        if upstreamDone {
          let cap = fetched.resultCap.flatMap { walked.largestTotal > $0 && page * pageSize >= $0 ? $0 : nil }
          var batch = finished(cursor: cursor, collected: collected, distinct: walked.distinct, cappedAt: cap)
          batch.incomplete = walked.incomplete
          batch.peak = walked.peak
          batch.reportedTotal = walked.largestTotal
          return (batch, .done, recorded, true)
        }
        if collected.count == batchSize {
          // Knowing whether more follow would cost another page; let the next batch find out.
          return (goingOn(cursor: cursor, collected, walked), .done, recorded, false)
        }
        page += 1
      }
    } catch {
      return (
        ListBatch(cursor: cursor, items: [], nextCursor: nil, total: 0, state: .error(classify(error))),
        .failed,
        recorded, false
      )
    }
  }

  /// A hash of a page's ids in order (the same within one process).
  static func fingerprint(_ items: [Source.Item]) -> Int {
    var hasher = Hasher()
    hasher.combine(items.count)
    for index in items.indices { hasher.combine(items[index].id) }
    return hasher.finalize()
  }

  /// The terminal batch once the upstream has nothing more to give; `cap` is set when the result cap,
  /// not the upstream's supply, stopped the list.
  func finished(
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
