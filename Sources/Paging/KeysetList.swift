/// A list read by windows of its sort key, so that it goes on past the upstream's result cap: the
/// batches of `WindowCursor`s, each of which says where its batch starts.
///
/// Each window is one upstream read. A window whose rows all fit its page (its count says so) lists
/// them all and ends the list. Otherwise, with `a` the key of its last row, it lists the rows whose key
/// is strictly beyond `a`, and the next window starts at `a`: exactly at the ties of `a`, none of
/// which was listed. If every row of the page has the key `a`, `a` is a tie bucket: it is read in
/// creation-time slices that a page holds whole (`IntervalWalk`), newest first, and the list goes on
/// just beyond `a`. Every window's bound moves strictly, so the walk ends; and since each window's rows
/// come from one read and the windows' ranges partition the keys (and a bucket's slices its creation
/// times), a row whose key does not change during the walk is listed exactly once.
///
/// ```swift
/// let list = KeysetList(source: stars, batchSize: 20)
/// let first = await list.batch(at: .start)            // rows 1…20 and first.next
/// let later = await list.batch(at: first.next!)       // rows 21…40, at any depth without a walk
/// ```
public struct KeysetList<Source: WindowSource>: Sendable {
  /// The upstream.
  public let source: Source
  /// Rows per batch (at least 1).
  public let batchSize: Int
  /// Maps an error thrown by the source to a presentable `ListError`.
  public let classify: @Sendable (any Error) -> ListError
  /// Ids listed before this list's first window (a continuation after another order's rows): never
  /// listed here.
  public var excluded: Set<Source.Item.ID> = []
  /// Most probes for one window (slices or key ranges narrowed or passed over because they held
  /// more than a page or nothing) before it is read as it is.
  public var maxProbes = 24

  /// Windows one batch may pass through (ties re-read, empty slices) before it answers with what it
  /// has and a cursor further on; each window costs an upstream read.
  public var maxWindowsPerBatch = 48

  /// A list over `source`.
  public init(
    source: Source, batchSize: Int = 20,
    classify: @escaping @Sendable (any Error) -> ListError = ListError.generic
  ) {
    self.source = source
    self.batchSize = max(1, batchSize)
    self.classify = classify
  }

  /// The reads a batch made.
  public struct Reads: Sendable, Equatable {
    /// Window pages read (from a cache or upstream), probes included.
    public var pages = 0
    /// Reads made only to learn that a slice or key range held more than a page, or nothing.
    public var probes = 0

    /// No reads yet.
    public init() {}
  }

  /// One batch and where the next starts.
  public struct Batch: Sendable {
    /// The rows, state and counts (`cursor` and `nextCursor` are positions).
    public var batch: ListBatch<Source.Item>
    /// Where the next batch starts; nil when the list ended or failed.
    public var next: WindowCursor?
    /// Rows of `next`'s window after its skip, when this batch read that window (nil: not read yet).
    public var left: Int?
    /// The reads made.
    public var reads: Reads
  }

  /// One window as read: the rows it lists (indices into `page.items`, in order), the window after it
  /// and how many pages it has.
  struct Read {
    /// The window actually read (a slice or key range may have been narrowed or moved past nothing).
    var window: KeyWindow
    var page: SourcePage<Source.Item>
    /// Which rows of the page the window lists.
    var rows: [Int]
    /// The window after this one; nil when the list ends with it (see `sliceAfter`).
    var next: KeyWindow?
    /// For a slice: the slice whose successor comes next, placed only when a batch gets there
    /// (`following`), since that reads the bucket's overview.
    var sliceAfter: (key: Int, slice: Interval)? = nil
    /// Pages of the window (more than one only for a one-second slice holding more than a page).
    var pages = 1
    /// The rows from this window to the list's end, when the read counted them (a window that runs to
    /// the end; not a bucket, slice or key range).
    var remaining: Int? = nil
  }

  /// The batch of up to `batchSize` rows at `cursor`. `memory` (with the list's `key`) drops rows
  /// listed at an earlier position of the same list; `reload` bypasses caches for the windows read.
  public func batch<Key>(
    at cursor: WindowCursor, reload: Bool = false, memory: ListedIDs<Key, Source.Item.ID>?, key: Key
  ) async -> Batch {
    var collected: [PositionedItem<Source.Item>] = []
    collected.reserveCapacity(batchSize)
    var position = cursor.position
    var window = cursor.window
    var skip = cursor.skip
    var total = cursor.total
    var reads = Reads()
    var peak = 0
    var incomplete = false
    var reported = 0
    var windows = 0
    do {
      while true {
        windows += 1
        // Only the cursor's own window, once it is inside it, is read exactly as named; an old
        // `after=N` on the first window is a count of rows to pass, through whatever windows follow.
        let fixed = windows == 1 && skip > 0 && window != .first
        var read = try await self.read(window, fixed: fixed, reload: reload, reads: &reads)
        window = read.window
        peak = max(peak, source.peak(of: read.page))
        incomplete = incomplete || read.page.incomplete
        // What is left from a window that runs to the list's end, counted from where it starts.
        if let remaining = read.remaining, excluded.isEmpty {
          total = Self.sum(max(0, position - min(skip, position)), remaining)
          reported = max(reported, total ?? 0)
        }
        // A one-second slice holding more than a page is read by offset: start on the page of `skip`.
        var page = 1
        if read.pages > 1, skip >= source.pageSize {
          page = min(read.pages, skip / max(1, source.pageSize) + 1)
          try await readPage(page, of: &read, reload: reload, reads: &reads)
        }
        var carry = 0
        while true {
          let first = (page - 1) * source.pageSize
          var index = max(0, skip - first)
          // An old `after=N` past this window's rows goes on into the next window.
          if index > read.rows.count, page == read.pages { carry = index - read.rows.count }
          while index < read.rows.count, collected.count < batchSize {
            let end = min(read.rows.count, index + batchSize - collected.count)
            take(read.rows[index..<end], of: read.page.items, after: &position, into: &collected, memory, key)
            skip = first + end
            index = end
          }
          if collected.count == batchSize, index < read.rows.count {
            let next = WindowCursor(window: window, skip: skip, position: position, total: total)
            var batch = goingOn(cursor, collected, next, reads, peak, incomplete, reported)
            batch.left = read.rows.count - index + (read.pages - page) * source.pageSize
            return batch
          }
          guard page < read.pages else { break }
          page += 1
          try await readPage(page, of: &read, reload: reload, reads: &reads)
          if read.rows.isEmpty { break }
        }
        guard let next = try await following(read, reload: reload, reads: &reads) else {
          return finished(cursor, collected, position: position, reads, peak, incomplete, reported)
        }
        window = next
        skip = carry
        // A full batch: whether more follow costs another read, which the next batch makes.
        if (collected.count == batchSize && carry == 0) || windows >= maxWindowsPerBatch {
          let next = WindowCursor(window: next, skip: carry, position: position, total: total)
          return goingOn(cursor, collected, next, reads, peak, incomplete, reported)
        }
      }
    } catch {
      let failed = ListBatch<Source.Item>(
        cursor: cursor.position, items: [], nextCursor: nil, total: 0, state: .error(classify(error)))
      return Batch(batch: failed, next: nil, left: nil, reads: reads)
    }
  }

  /// Lists `rows` of `items` in order after `position`: those excluded, already in this batch or
  /// listed earlier in the list (`memory`) are passed over.
  func take<Key>(
    _ rows: ArraySlice<Int>, of items: [Source.Item], after position: inout Int,
    into collected: inout [PositionedItem<Source.Item>], _ memory: ListedIDs<Key, Source.Item.ID>?, _ key: Key
  ) {
    var ids: [Source.Item.ID] = []
    var kept: [Int] = []
    ids.reserveCapacity(rows.count)
    for row in rows {
      let id = items[row].id
      if excluded.contains(id) || collected.contains(where: { $0.item.id == id }) || ids.contains(id) {
        continue
      }
      ids.append(id)
      kept.append(row)
    }
    let admitted = memory?.admit(ids, after: position, in: key) ?? Array(repeating: true, count: ids.count)
    for (row, admit) in zip(kept, admitted) where admit {
      position = position < Int.max ? position + 1 : Int.max
      collected.append(PositionedItem(position: position, item: items[row]))
    }
  }

  /// Reads `window`, narrowing a slice or key range that holds more than a page and passing over
  /// empty ones (unless the cursor is already inside it), and works out which of its rows it lists and
  /// which window follows.
  /// A `fixed` window (a cursor inside it) is read as it is.
  func read(_ window: KeyWindow, fixed: Bool, reload: Bool, reads: inout Reads) async throws -> Read {
    if let key = window.keys.single, let slice = window.slice {
      return try await readSlice(key: key, slice, fixed: fixed, reload: reload, reads: &reads)
    }
    if source.keysVisible, let key = window.keys.single {
      return try await readBucket(key, reload: reload, reads: &reads)
    }
    if source.keysVisible { return try await readKeys(window, reload: reload, reads: &reads) }
    return try await readCounted(window, fixed: fixed, reload: reload, reads: &reads)
  }

  /// A window of a list whose rows show their key: its rows strictly beyond the key `a` of its last
  /// row, then the window from `a` on; or, when every row has the key `a`, the tie bucket of `a`.
  func readKeys(_ window: KeyWindow, reload: Bool, reads: inout Reads) async throws -> Read {
    let page = try await fetch(window, reload: reload, reads: &reads)
    let items = page.items
    let values = source.keys(of: items)
    let inRange = values.indices.filter { window.keys.contains(values[$0]) }
    guard let last = inRange.last else {
      return Read(window: window, page: page, rows: [], next: nil, remaining: page.totalCount)
    }
    // The page holds everything the window has: the list ends with it.
    if page.totalCount <= items.count && !page.incomplete {
      return Read(window: window, page: page, rows: inRange, next: nil, remaining: page.totalCount)
    }
    let edge = values[last]
    let descending = source.descending
    let rows = inRange.filter { descending ? values[$0] > edge : values[$0] < edge }
    guard !rows.isEmpty else {
      // Every row has the key `edge`: its tie bucket, read whole or in slices.
      return Read(
        window: window, page: page, rows: [], next: KeyWindow(keys: .just(edge)), remaining: page.totalCount)
    }
    // The rows listed lie strictly beyond `edge`, so the next window starts strictly further on.
    let keys =
      source.descending
      ? Interval(lower: window.keys.lower, upper: edge) : Interval(lower: edge, upper: window.keys.upper)
    return Read(
      window: window, page: page, rows: rows, next: KeyWindow(keys: keys), remaining: page.totalCount)
  }

  /// A window of a list whose rows do not show their key: a key range sized to fit a page from the
  /// counts reads report, listed whole; a single key holding more is a tie bucket.
  func readCounted(_ window: KeyWindow, fixed: Bool, reload: Bool, reads: inout Reads) async throws -> Read {
    let walk = IntervalWalk(
      downward: source.descending, edge: source.descending ? source.keys.lowerBound : source.keys.upperBound)
    var keys = window.keys
    var probes = 0
    // The whole list's count, when this read starts from it.
    var remaining: Int? = nil
    while true {
      let current = KeyWindow(keys: keys)
      let page = try await fetch(current, reload: reload, reads: &reads)
      let count = page.totalCount
      if keys == .all { remaining = count }
      let searching = !fixed && probes < maxProbes
      // One key: a range of one value, or one that reaches the last key (nothing lies past it).
      let single =
        keys.single ?? walk.near(keys).flatMap { walk.far(keys) == nil && $0 == walk.edge ? $0 : nil }
      if count > source.pageSize, let value = single {
        // A tie bucket: this read is its overview (a sample of its rows and their count).
        let slice = IntervalWalk.creationTimes.interval(
          past: nil, sample: source.createdTimes(of: page.items), rows: count)
        return Read(
          window: current, page: page, rows: [], next: KeyWindow(keys: .just(value), slice: slice),
          remaining: remaining)
      }
      if count > source.pageSize, searching, let narrower = narrowed(keys, walk, rows: count) {
        keys = narrower
        probes += 1
        reads.probes += 1
        continue
      }
      if count == 0, page.items.isEmpty, searching, keys != .all,
        let further = walk.next(after: keys, rows: 0, seen: nil)
      {
        keys = further
        probes += 1
        reads.probes += 1
        continue
      }
      let next =
        keys == .all && count <= source.pageSize ? nil : walk.next(after: keys, rows: count, seen: nil)
      // A range that still holds more than a page (a cursor inside it) is read by offset.
      let held = min(max(count, page.items.count), source.resultCap)
      return Read(
        window: current, page: page, rows: Array(page.items.indices), next: next.map { KeyWindow(keys: $0) },
        pages: max(1, (held + source.pageSize - 1) / max(1, source.pageSize)), remaining: remaining)
    }
  }

  /// A key range that holds fewer rows than `keys` (which held `rows`, more than a page), with the
  /// same near end; from the whole list, the walk's first range.
  func narrowed(_ keys: Interval, _ walk: IntervalWalk, rows: Int) -> Interval? {
    if keys == .all {
      // Ascending: the smallest key first. Descending: from the largest keys down, found by widening
      // a top range (keys ≥ 1, 8, 64, …) until it fits.
      return source.descending
        ? Interval(lower: max(source.keys.lowerBound + 1, 1), upper: nil)
        : .just(source.keys.lowerBound)
    }
    if walk.near(keys) == nil, let far = walk.far(keys) {
      let (raised, overflow) = far.multipliedReportingOverflow(by: 8)
      return overflow || raised == far ? nil : walk.interval(near: nil, far: raised)
    }
    return walk.narrowed(keys, rows: rows, seen: nil)
  }

  /// A tie bucket of a list whose rows show their key, read as one window: all its rows when a page
  /// holds them, else none, and its creation-time slices follow (placed by this read's sample).
  func readBucket(_ key: Int, reload: Bool, reads: inout Reads) async throws -> Read {
    let window = KeyWindow(keys: .just(key))
    let page = try await fetch(window, reload: reload, reads: &reads)
    let rows = self.rows(of: page.items, in: window.keys)
    if page.totalCount <= page.items.count && !page.incomplete {
      return Read(window: window, page: page, rows: rows, next: beyond(key))
    }
    let slice = IntervalWalk.creationTimes.interval(
      past: nil, sample: createdTimes(of: rows, in: page.items), rows: page.totalCount)
    return Read(window: window, page: page, rows: [], next: KeyWindow(keys: .just(key), slice: slice))
  }

  /// A tie bucket's slice: its rows, narrowed while it holds more than a page and passed over while it
  /// holds nothing; one that cannot be narrowed (one second) is read by offset, up to the cap.
  func readSlice(key: Int, _ slice: Interval, fixed: Bool, reload: Bool, reads: inout Reads) async throws
    -> Read
  {
    let walk = IntervalWalk.creationTimes
    var slice = slice
    var probes = 0
    while true {
      let current = KeyWindow(keys: .just(key), slice: slice)
      let page = try await fetch(current, reload: reload, reads: &reads)
      let rows = self.rows(of: page.items, in: current.keys)
      let searching = !fixed && probes < maxProbes
      if page.totalCount > source.pageSize, searching {
        let created = createdTimes(of: rows, in: page.items)
        if let narrower = walk.narrowed(slice, rows: page.totalCount, seen: created.max(), sample: created) {
          slice = narrower
          probes += 1
          reads.probes += 1
          continue
        }
      }
      if page.totalCount == 0, page.items.isEmpty, searching,
        let further = try await olderSlice(than: slice, of: key, reload: reload, reads: &reads)
      {
        slice = further
        probes += 1
        reads.probes += 1
        continue
      }
      let held = min(max(page.totalCount, page.items.count), source.resultCap)
      let pages = max(1, (held + source.pageSize - 1) / max(1, source.pageSize))
      var read = Read(window: current, page: page, rows: rows, next: nil, pages: pages)
      read.sliceAfter = (key, slice)
      return read
    }
  }

  /// The window after `read`: known, or for a slice the next slice of its bucket (or the keys beyond
  /// the bucket after its last slice).
  func following(_ read: Read, reload: Bool, reads: inout Reads) async throws -> KeyWindow? {
    guard let (key, slice) = read.sliceAfter else { return read.next }
    guard let next = try await olderSlice(than: slice, of: key, reload: reload, reads: &reads) else {
      return beyond(key)
    }
    return KeyWindow(keys: .just(key), slice: next)
  }

  /// The slice of bucket `key` just older than `slice`, placed by the bucket's overview (its first
  /// page, cached: any instance places it alike); nil after the last (open) slice.
  func olderSlice(than slice: Interval, of key: Int, reload: Bool, reads: inout Reads) async throws
    -> Interval?
  {
    guard let lower = slice.lower else { return nil }
    let overview = try await fetch(KeyWindow(keys: .just(key)), reload: false, reads: &reads)
    let sample = createdTimes(of: rows(of: overview.items, in: .just(key)), in: overview.items)
    return IntervalWalk.creationTimes.interval(
      past: lower > Int.min ? lower - 1 : lower, sample: sample, rows: overview.totalCount)
  }

  /// Page 1 of `window`, counted.
  func fetch(_ window: KeyWindow, reload: Bool, reads: inout Reads) async throws -> SourcePage<Source.Item> {
    let page = try await source.fetch(window, page: 1, reload: reload)
    reads.pages += 1
    return page
  }

  /// Reads page `page` of a window read by offset into `read`: its rows with the window's key.
  func readPage(_ page: Int, of read: inout Read, reload: Bool, reads: inout Reads) async throws {
    read.page = try await source.fetch(read.window, page: page, reload: reload)
    reads.pages += 1
    read.rows = rows(of: read.page.items, in: read.window.keys)
  }

  /// Which of `items` have a key within `keys` (all of them when rows do not show their key), read
  /// from the page's keys at once: this runs on every read, for every batch.
  func rows(of items: [Source.Item], in keys: Interval) -> [Int] {
    guard source.keysVisible else { return Array(items.indices) }
    let values = source.keys(of: items)
    return values.indices.filter { keys.contains(values[$0]) }
  }

  /// The creation times of the rows `rows` of `items`.
  func createdTimes(of rows: [Int], in items: [Source.Item]) -> [Int] {
    let created = source.createdTimes(of: items)
    return rows.map { created[$0] }
  }

  /// The window just beyond key `key` in the list's direction, after its tie bucket: every key from
  /// there on when rows show their key, the next key alone when they do not (a range is then sized
  /// from it); nil past the last possible key.
  func beyond(_ key: Int) -> KeyWindow? {
    guard source.descending ? key > source.keys.lowerBound : key < source.keys.upperBound else { return nil }
    let next = source.descending ? key - 1 : key + 1
    guard source.keysVisible else { return KeyWindow(keys: .just(next)) }
    return KeyWindow(
      keys: source.descending ? Interval(lower: nil, upper: next) : Interval(lower: next, upper: nil))
  }

  /// A batch asked for at `cursor` of a list that goes on at `next`.
  func goingOn(
    _ cursor: WindowCursor, _ collected: [PositionedItem<Source.Item>], _ next: WindowCursor, _ reads: Reads,
    _ peak: Int, _ incomplete: Bool, _ reported: Int
  ) -> Batch {
    let total = Self.setSize(next.total, last: next.position)
    let batch = ListBatch(
      cursor: cursor.position, items: collected,
      nextCursor: next.position, total: total, state: .items, incomplete: incomplete, peak: peak,
      reportedTotal: reported)
    return Batch(batch: batch, next: next, left: nil, reads: reads)
  }

  /// The last batch, asked for at `cursor`: the list ended after `position` rows.
  func finished(
    _ cursor: WindowCursor, _ collected: [PositionedItem<Source.Item>], position: Int, _ reads: Reads,
    _ peak: Int, _ incomplete: Bool, _ reported: Int
  ) -> Batch {
    let state: ListState = position == 0 ? .empty : .end(.noMoreResults(position))
    let batch = ListBatch(
      cursor: cursor.position, items: collected, nextCursor: nil,
      total: position, state: state, incomplete: incomplete, peak: peak,
      reportedTotal: max(reported, position))
    return Batch(batch: batch, next: nil, left: nil, reads: reads)
  }

  /// `aria-setsize` for a list that goes on: the count, at least the rows listed; -1 when unknown.
  static func setSize(_ total: Int?, last: Int) -> Int {
    guard let total else { return -1 }
    return max(total, last)
  }

  /// `a + b`, saturating.
  static func sum(_ a: Int, _ b: Int) -> Int {
    let (s, overflow) = a.addingReportingOverflow(max(0, b))
    return overflow ? Int.max : s
  }
}
