import Credentials
import GitHub
import Paging
import Synchronization

/// The batches of both lists (search and owner), read through the shared list index; each batch
/// read feeds read-ahead and warming. Used by the page and fragment handlers.
///
/// Past GitHub's 1,000-result cap a list goes on by windows of its sort key (`KeysetList`): from its
/// first row for the orders with a range qualifier, and after GitHub's own first 1,000 (read as
/// before, by page) for best match and `updated`, which go on by stars, skipping the rows shown.
struct ListBatches: Sendable {
  /// One batch as fetched: the batch, the largest star count up to it (the bars' scale), upstream's
  /// result count (0 when no page was read), whether GitHub refused the reader's token (the batch
  /// then came anonymously), and the credential it was read as (the renewed one after a renewal;
  /// nil when anonymous), the one to warm with.
  struct Fetched: Sendable {
    let batch: ListBatch<Repository>
    let largest: Int
    let total: Int
    let revoked: Bool
    var readAs: ReaderCredential? = nil
    /// Where the batch starts, as its own link asks for it (a retry asks again there).
    var cursor: ListCursor = .offset(0)
    /// Where the next batch starts; nil when the list ended or the batch failed.
    var next: ListCursor? = nil
    /// On the batch that starts the continuation after GitHub's own first 1,000: what the divider
    /// before its first row says.
    var divider: String? = nil
    /// Why a list that ended at GitHub's cap could not go on (its query cannot take a window).
    var capReason: String? = nil
  }

  let client: GitHubClient
  let batchSize: Int
  let prefetchMargin: Int
  let readAhead: ReadAhead
  let warming: Warming
  /// Unix seconds now, the time batch views are rendered at.
  let now: @Sendable () -> Int
  /// Where each list's upstream pages fall in its de-duplicated rows, for as long as search pages stay
  /// fresh: a fragment at any depth reads only the pages its cards come from.
  let listIndex: ListIndex<ListKind, Int>
  /// The same for readers whose answers are their own (`AnswerOwner.reader`): their rows differ, so
  /// their lists are kept apart, under the reader's id.
  let ownIndex: ListIndex<OwnList, Int>

  /// A list as one reader's own answers make it.
  struct OwnList: Hashable, Sendable {
    let kind: ListKind
    let reader: Int
  }

  /// Where each id was first listed in the lists read by windows, to drop a row met again.
  let listed = ListedIDs<ListKind, Int>()
  /// The ids of GitHub's own first 1,000 of the lists that continue after them (best match,
  /// `updated`), kept so the continuation's fragments need not read those pages again.
  let firstRows = FirstRows()

  /// Batches of `batchSize` rows; the index forgets a list `lifetime` seconds (by `now`) after it learnt it.
  init(
    client: GitHubClient, batchSize: Int, prefetchMargin: Int, lifetime: Int, readAhead: ReadAhead,
    warming: Warming, now: @escaping @Sendable () -> Int
  ) {
    self.client = client
    self.batchSize = batchSize
    self.prefetchMargin = prefetchMargin
    self.readAhead = readAhead
    self.warming = warming
    self.now = now
    listIndex = ListIndex(capacity: 64, lifetime: lifetime, clock: now)
    ownIndex = ListIndex(capacity: 256, lifetime: lifetime, clock: now)
  }

  /// Whether the batch at `cursor` would be read from this process's cache as it stands: every
  /// upstream page it starts from is fresh there for `reader`. A synchronous probe of the cache's
  /// state (no I/O, no wait), so the page handler's choice between a whole page and a stream is the
  /// same for the same request in the same state. Cursors inside later windows always answer false.
  func isCached(_ kind: ListKind, at cursor: ListCursor, reader: ReaderCredential?) -> Bool {
    guard case .offset(let after) = cursor, after >= 0 else { return false }
    let size = GitHubSearchSource.pageSize
    let (end, overflow) = after.addingReportingOverflow(batchSize)
    guard !overflow, end <= GitHubSearchSource.resultCap else { return false }
    // A list in its own windows reads its first window from page 1 only.
    if let windows = kind.windows, !windows.continuation, end > size { return false }
    return (after / size + 1...(end - 1) / size + 1).allSatisfy { page in
      client.hasFreshSearchPage(kind.query, page: page, perPage: size, as: reader)
    }
  }

  /// The first batch of a list.
  func batch(
    _ kind: ListKind, after cursor: Int, reload: Bool, reader: ReaderCredential? = nil,
    revocation: Revocation? = nil
  ) async -> Fetched {
    await batch(kind, at: .offset(cursor), reload: reload, reader: reader, revocation: revocation)
  }

  /// One batch of a list at `cursor`, read as `reader` (nil: anonymously). The list index lets a
  /// batch at any depth read only the pages its cards come from. A reader whose answers are their own
  /// (their token may see private repositories) has other rows, so their lists have their own index
  /// entries and read-ahead, use no shared window memory, and never feed the shared card positions.
  func batch(
    _ kind: ListKind, at cursor: ListCursor, reload: Bool, reader: ReaderCredential? = nil,
    revocation given: Revocation? = nil
  ) async -> Fetched {
    let revocation = reader == nil ? nil : given ?? Revocation()
    let search = GitHubSearchSource(client: client, query: kind.query, reader: reader, revocation: revocation)
    let owner = client.owner(of: reader)
    let shared = owner == .everyone
    var fetched: Fetched
    // Read once: `windows` looks the query up in a memo under a lock.
    let windows = kind.windows
    switch (windows, cursor) {
    case (let windows?, .window(let window)):
      fetched = await windowBatch(kind, windows, window, search: search, reload: reload, shared: shared)
    case (let windows?, .offset(let after)) where !windows.continuation:
      let start = WindowCursor(window: .first, skip: after, position: after)
      fetched = await windowBatch(kind, windows, start, search: search, reload: reload, shared: shared)
    case (let windows, .offset(let after)):
      fetched = await pagedBatch(
        kind, after: after, search: search, reload: reload, owner: owner,
        continues: windows?.continuation == true)
      if let windows, windows.continuation, case .end(.capReached) = fetched.batch.state,
        fetched.batch.reportedTotal > fetched.batch.total
      {
        // GitHub's own order ends at its cap; the list goes on by stars.
        let start = WindowCursor(
          window: .first, position: fetched.batch.total, total: fetched.batch.reportedTotal)
        if fetched.batch.items.isEmpty {
          fetched = await windowBatch(kind, windows, start, search: search, reload: reload, shared: shared)
        } else {
          fetched = Self.goingOn(fetched, at: start)
        }
      } else if windows == nil, case .end(.capReached) = fetched.batch.state {
        fetched.capReason = Self.capReason(kind)
      }
    case (nil, .window):
      // Parsing refuses window parameters for such a list; answered as its end.
      fetched = await pagedBatch(
        kind, after: GitHubSearchSource.resultCap, search: search, reload: reload, owner: owner,
        continues: false)
      fetched.capReason = Self.capReason(kind)
    }
    fetched.cursor = cursor
    let revoked = revocation?.happened ?? false
    // The renewed credential, or none once the token was refused (warming then goes anonymously).
    let readAs = Self.readAs(search)
    // Rows that are a reader's own (some may be private) never become shared card positions.
    warming.sent(fetched.batch, list: kind, shared: revoked || shared)
    return Fetched(
      batch: fetched.batch, largest: fetched.largest, total: fetched.total, revoked: revoked, readAs: readAs,
      cursor: fetched.cursor, next: fetched.next, divider: fetched.divider, capReason: fetched.capReason)
  }

  /// The credential `search`'s reader is read as now: the renewed one after a renewal, nil once the
  /// token was refused (or for an anonymous reader).
  private static func readAs(_ search: GitHubSearchSource) -> ReaderCredential? {
    search.reader.flatMap { reader in search.revocation.map { $0.usable(reader) } ?? reader }
  }

  /// A batch of GitHub's own order by page (its first 1,000), read ahead by page; `continues` when the
  /// list goes on past the cap by windows (`ListKind.Windows.continuation`).
  private func pagedBatch(
    _ kind: ListKind, after cursor: Int, search: GitHubSearchSource, reload: Bool, owner: AnswerOwner,
    continues: Bool
  ) async -> Fetched {
    let list = PagedList(source: search, batchSize: batchSize, classify: GitHubSearchSource.classify)
    var batch: ListBatch<Repository>
    switch owner {
    case .reader(let id):
      batch = await list.batch(
        after: cursor, reload: reload, index: ownIndex, key: OwnList(kind: kind, reader: id))
    case .everyone:
      batch = await list.batch(after: cursor, reload: reload, index: listIndex, key: kind)
    }
    let readAs = Self.readAs(search)
    await readAhead.consider(batch, query: kind.query, as: readAs)
    // A list that goes on past the cap is as long as GitHub counts it (`aria-setsize`).
    if continues, case .items = batch.state, batch.reportedTotal > batch.total {
      batch.total = batch.reportedTotal
    }
    var fetched = Fetched(batch: batch, largest: batch.peak, total: batch.reportedTotal, revoked: false)
    fetched.next = batch.nextCursor.map { .offset($0) }
    return fetched
  }

  /// A batch read by windows: in the list's own order, or as the continuation after GitHub's first
  /// 1,000 (whose ids it skips).
  private func windowBatch(
    _ kind: ListKind, _ windows: ListKind.Windows, _ cursor: WindowCursor, search: GitHubSearchSource,
    reload: Bool, shared: Bool
  ) async -> Fetched {
    var list = keysetList(kind, windows, search: search, rows: batchSize)
    var start = cursor
    if windows.continuation {
      do {
        let first = try await firstRows.rows(kind, search: search, shared: shared)
        list.excluded = first.ids
        if cursor.window == .first, cursor.skip == 0 {
          start.window = try await first.continuationStart(list.source)
        }
      } catch {
        let failed = ListBatch<Repository>(
          cursor: cursor.position, items: [], nextCursor: nil, total: 0,
          state: .error(GitHubSearchSource.classify(error)))
        return Fetched(batch: failed, largest: 0, total: 0, revoked: false)
      }
    }
    let result = await list.batch(at: start, reload: reload, memory: shared ? listed : nil, key: kind)
    var fetched = Fetched(
      batch: result.batch, largest: result.batch.peak, total: result.batch.reportedTotal, revoked: false)
    fetched.next = result.next.map { windows.continuation ? .window($0) : Self.link($0) }
    if windows.continuation, cursor.window == .first, cursor.skip == 0 {
      fetched.divider = Self.divider(kind, shown: cursor.position, total: cursor.total)
    }
    if let next = result.next {
      await readAheadWindows(kind, windows, from: next, left: result.left, search: search, shared: shared)
    }
    return fetched
  }

  /// The keyset list of `kind`'s windows, `rows` a batch.
  private func keysetList(
    _ kind: ListKind, _ windows: ListKind.Windows, search: GitHubSearchSource, rows: Int
  )
    -> KeysetList<GitHubWindowSource>
  {
    let source = GitHubWindowSource(
      search: search, key: windows.key, descending: windows.descending, base: windows.base,
      firstIsPlain: !windows.continuation)
    return KeysetList(source: source, batchSize: rows, classify: GitHubSearchSource.classify)
  }

  /// Reads the windows of the `lead` rows at `next` ahead of the reader, when fewer than that are
  /// left in the window already read (`left`; nil: none read).
  private func readAheadWindows(
    _ kind: ListKind, _ windows: ListKind.Windows, from next: WindowCursor, left: Int?,
    search: GitHubSearchSource,
    shared: Bool
  ) async {
    let lead = readAhead.lead
    guard lead > 0, (left ?? 0) < lead else { return }
    let readAs = Self.readAs(search)
    // Its own source: a revocation seen ahead of the reader is not the request's.
    let ahead = GitHubSearchSource(client: client, query: kind.query, reader: readAs, revocation: nil)
    let list = keysetList(kind, windows, search: ahead, rows: lead)
    let firstRows = self.firstRows
    await readAhead.consider(window: next.window, query: kind.query, as: readAs) {
      var list = list
      if windows.continuation {
        guard let first = try? await firstRows.rows(kind, search: ahead, shared: shared) else { return }
        list.excluded = first.ids
      }
      _ = await list.batch(at: next, memory: nil as ListedIDs<ListKind, Int>?, key: kind)
    }
  }

  /// How a link names `cursor` in a list in its own order: rows into the first window as `after=N`
  /// alone (as links always did), further windows by their parameters.
  static func link(_ cursor: WindowCursor) -> ListCursor {
    cursor.window == .first && cursor.skip == cursor.position ? .offset(cursor.position) : .window(cursor)
  }

  /// A batch of GitHub's own order that ends at its cap, made to go on at `start`.
  private static func goingOn(_ fetched: Fetched, at start: WindowCursor) -> Fetched {
    var batch = fetched.batch
    batch.state = .items
    batch.nextCursor = start.position
    batch.total = batch.reportedTotal
    var result = Fetched(
      batch: batch, largest: fetched.largest, total: fetched.total, revoked: fetched.revoked)
    result.next = .window(start)
    return result
  }

  /// What the divider before the continuation says.
  static func divider(_ kind: ListKind, shown: Int, total: Int?) -> String {
    let order = kind.query.sort == .updated ? "last update" : "best match"
    let first = Formatting.grouped(shown)
    guard let total, total > shown else {
      return "GitHub ranks only the first \(first) by \(order); the others follow by stars."
    }
    return
      "GitHub ranks only the first \(first) by \(order); the other \(Formatting.grouped(total - shown)) follow by stars."
  }

  /// Why a list stopped at GitHub's cap.
  static func capReason(_ kind: ListKind) -> String {
    "Its query holds a qualifier this list cannot combine with the next window, or is too long to take one."
  }

  /// The view of a fetched batch now; on a full page (`resultCount` given) it is the page's first.
  func view(_ fetched: Fetched, kind: ListKind, firstOnPage: Bool, resultCount: Int? = nil) -> BatchView {
    var view = BatchView(
      batch: fetched.batch, kind: kind, batchSize: batchSize, prefetchMargin: prefetchMargin,
      largestStars: fetched.largest, now: now(), resultCount: resultCount, firstOnPage: firstOnPage)
    view.cursor = fetched.cursor
    view.next = fetched.next
    view.divider = fetched.divider
    view.capReason = fetched.capReason
    return view
  }
}

/// GitHub's own first 1,000 rows of the lists that continue after them (best match, `updated`), by
/// list (at most `capacity` lists): read once from those pages (cached), so that every fragment of the
/// continuation can skip them.
final class FirstRows: Sendable {
  /// The rows' ids, and their star counts largest first.
  struct Rows: Sendable {
    let ids: Set<Int>
    let stars: [Int]

    /// Most counts asked for to find where the continuation can start.
    static let maxProbes = 4

    /// Where the continuation by stars starts: at the smallest star count `c` among these rows' such
    /// that GitHub counts no more rows with more than `c` stars than these rows hold, so every such
    /// row was listed already. GitHub's own first 1,000 are often the most starred (best match weighs
    /// stars), and the continuation then need not read them again. Found by binary search over these
    /// rows' counts, at most `maxProbes` counts (each a search call, cached; the first, at the
    /// smallest count, is the one that usually fits); the whole list when none fits.
    func continuationStart(_ source: GitHubWindowSource) async throws -> KeyWindow {
      var distinct: [Int] = []
      for value in stars where distinct.last != value { distinct.append(value) }
      var found: Int? = nil
      var low = 0
      var high = distinct.count - 1
      var index = high
      var probes = 0
      while low <= high, probes < Self.maxProbes {
        probes += 1
        let value = distinct[index]
        let above = value < Int.max ? value + 1 : value
        let held = stars.prefix { $0 >= above }.count
        let page = try await source.fetch(
          KeyWindow(keys: Interval(lower: above, upper: nil)), page: 1, reload: false)
        if page.totalCount <= held {
          // Every row with more than `value` stars was listed: look for a smaller count.
          found = value
          low = index + 1
        } else {
          high = index - 1
        }
        index = (low + high) / 2
      }
      guard let found else { return .first }
      return KeyWindow(keys: Interval(lower: nil, upper: found))
    }
  }

  private let lists = Mutex<[ListKind: Rows]>([:])
  /// Most lists kept (all are forgotten when full: each costs only cached page reads to learn again).
  let capacity = 64

  /// The rows listed in GitHub's own first pages of `kind`, de-duplicated as the list does (up to the
  /// cap); kept when `shared` (a reader who sees private repositories reads them each time).
  func rows(_ kind: ListKind, search: GitHubSearchSource, shared: Bool) async throws -> Rows {
    if shared, let known = lists.withLock({ $0[kind] }) { return known }
    var ids = Set<Int>(minimumCapacity: GitHubSearchSource.resultCap)
    var stars: [Int] = []
    var page = 1
    while ids.count < GitHubSearchSource.resultCap {
      let fetched = try await search.fetchPage(page, reload: false)
      for item in fetched.items where ids.count < GitHubSearchSource.resultCap && ids.insert(item.id).inserted
      {
        stars.append(item.stargazersCount)
      }
      let limit = min(fetched.totalCount, GitHubSearchSource.resultCap)
      if fetched.items.isEmpty || page * GitHubSearchSource.pageSize >= limit { break }
      page += 1
    }
    let rows = Rows(ids: ids, stars: stars.sorted(by: >))
    if shared {
      lists.withLock { lists in
        if lists.count >= capacity { lists.removeAll(keepingCapacity: true) }
        lists[kind] = rows
      }
    }
    return rows
  }
}
