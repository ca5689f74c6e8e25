import Synchronization

/// Where each upstream page's items fall in lists' de-duplicated sequences, kept per list so that a
/// batch at any depth reads only the pages its items come from (without it, every batch re-reads the
/// pages from page 1 to de-duplicate).
///
/// Bounded and never stale for longer than the pages it describes: at most `capacity` lists (the
/// least recently used goes first), each trusted for `lifetime` seconds after its first page was
/// indexed (the sources' cache freshness, after which pages may change), dropped when a batch is
/// reloaded, and checked against every page it reads (a page whose ids changed drops the list).
public final class ListIndex<Key: Hashable & Sendable, ID: Hashable & Sendable>: Sendable {
  /// Where a batch starts walking: page `page` with the state before it, the indexed pages from
  /// there on, and (when the batch may read past them) the ids of all indexed pages.
  struct Plan: Sendable {
    let generation: Int
    let page: Int
    let before: WalkState
    let known: ArraySlice<IndexedPage>
    let seen: Set<ID>?
  }

  struct Entry {
    var pages: [IndexedPage]
    /// Ids of every indexed page; nil while a walk has taken them to index further pages.
    var seen: Set<ID>?
    /// Whether the last indexed page ended the list.
    var ended: Bool
    let generation: Int
    let created: Int
    var used: Int
  }

  struct State {
    var entries: [Key: Entry] = [:]
    var generations = 0
    var uses = 0
  }

  // Each list's key and id types get specialised code in the release build (generic dictionary
  // lookups through witness tables cost more than the lookups themselves): Package.swift builds
  // Paging with cross-module optimisation, which lets callers specialise this generic code.
  let state = Mutex(State())
  let capacity: Int
  let lifetime: Int
  let clock: @Sendable () -> Int
  /// Most ids one list may index (beyond, batches past its indexed pages walk from page 1).
  let maxIDs: Int

  /// An index of at most `capacity` lists, each trusted for `lifetime` seconds of `clock`.
  public init(
    capacity: Int = 64, lifetime: Int, maxIDs: Int = 10_000, clock: @escaping @Sendable () -> Int
  ) {
    self.capacity = max(1, capacity)
    self.lifetime = lifetime
    self.maxIDs = maxIDs
    self.clock = clock
  }

  /// How many lists are indexed.
  public var count: Int { state.withLock { $0.entries.count } }

  /// Forgets the list `key` (its pages are being reloaded).
  func remove(_ key: Key) {
    state.withLock { _ = $0.entries.removeValue(forKey: key) }
  }

  /// Where a batch of `batchSize` items after `cursor` starts, or nil when the list is not indexed
  /// (or no longer trusted).
  func plan(_ key: Key, cursor: Int, batchSize: Int) -> Plan? {
    let now = clock()
    return state.withLock { state -> Plan? in
      // The entry is changed in place (one hash of the key, and its pages are not copied).
      guard let slot = state.entries.index(forKey: key) else { return nil }
      let created = state.entries.values[slot].created
      guard now - created < lifetime, now >= created else {
        state.entries.remove(at: slot)
        return nil
      }
      state.uses += 1
      state.entries.values[slot].used = state.uses
      let pages = state.entries.values[slot].pages
      let ended = state.entries.values[slot].ended
      // The first indexed page whose items reach past the cursor; else the first page after them.
      var first = pages.count
      var low = 0
      while low < first {
        let middle = (low + first) / 2
        if pages[middle].after.distinct > cursor { first = middle } else { low = middle + 1 }
      }
      // Past the end of an ended list: its last page answers again (never a page past the end).
      if ended && first == pages.count { first = max(0, first - 1) }
      // A batch also needs one item past its end, to know whether more follow.
      let last = pages.last?.after.distinct ?? 0
      var seen: Set<ID>? = nil
      if last <= cursor + batchSize && !ended {
        seen = state.entries.values[slot].seen
        state.entries.values[slot].seen = nil
      }
      return Plan(
        generation: state.entries.values[slot].generation, page: first + 1,
        before: first == 0 ? WalkState() : pages[first - 1].after,
        known: pages[first...], seen: seen)
    }
  }

  /// Records what a planned walk learnt: `pages` indexed after the entry's own, and the ids it took
  /// back (nil when it did not take them). Ignored if the list was dropped or re-indexed meanwhile.
  func extend(
    _ key: Key, generation: Int, pages: [IndexedPage], seen: Set<ID>?, ended: Bool
  ) {
    guard let seen else { return }
    state.withLock { state in
      guard let slot = state.entries.index(forKey: key), state.entries.values[slot].generation == generation
      else { return }
      state.entries.values[slot].pages += pages
      state.entries.values[slot].seen = seen.count <= maxIDs ? seen : nil
      state.entries.values[slot].ended = state.entries.values[slot].ended || ended
    }
  }

  /// Indexes a list walked from page 1.
  func store(_ key: Key, pages: [IndexedPage], seen: Set<ID>, ended: Bool) {
    let now = clock()
    state.withLock { state in
      if state.entries[key] == nil && state.entries.count >= capacity,
        let oldest = state.entries.min(by: { $0.value.used < $1.value.used })?.key
      {
        state.entries[oldest] = nil
      }
      state.generations += 1
      state.uses += 1
      state.entries[key] = Entry(
        pages: pages, seen: seen.count <= maxIDs ? seen : nil, ended: ended, generation: state.generations,
        created: now, used: state.uses)
    }
  }
}

/// The walk's running state after a page.
struct WalkState: Sendable {
  var distinct = 0
  var limit = 0
  var largestTotal = 0
  var barren = 0
  var peak = 0
  var incomplete = false
}

/// One indexed page.
struct IndexedPage: Sendable {
  /// Indices of the items that are new to the list (first occurrences), in page order.
  let fresh: [Int32]
  /// A hash of the page's ids in order, to notice a page that changed.
  let fingerprint: Int
  /// The state after this page.
  let after: WalkState
}
