import Credentials
import GitHub
import Paging

/// The batches of both lists (search and owner), read through the shared list index; each batch
/// read feeds read-ahead and warming. Used by the page and fragment handlers.
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

  /// One batch of a list, read as `reader` (nil: anonymously). The list index lets a batch at any
  /// depth read only the pages its cards come from; a reader whose answers are their own (their token
  /// may see private repositories) has other rows, so their lists have their own index entries and
  /// read-ahead, and never feed the shared card positions.
  func batch(
    _ kind: ListKind, after cursor: Int, reload: Bool, reader: ReaderCredential? = nil,
    revocation given: Revocation? = nil
  ) async -> Fetched {
    let revocation = reader == nil ? nil : given ?? Revocation()
    let source = GitHubSearchSource(client: client, query: kind.query, reader: reader, revocation: revocation)
    let list = PagedList(source: source, batchSize: batchSize, classify: GitHubSearchSource.classify)
    let batch: ListBatch<Repository>
    let owner = client.owner(of: reader)
    switch owner {
    case .reader(let id):
      batch = await list.batch(
        after: cursor, reload: reload, index: ownIndex, key: OwnList(kind: kind, reader: id))
    case .everyone:
      batch = await list.batch(after: cursor, reload: reload, index: listIndex, key: kind)
    }
    let revoked = revocation?.happened ?? false
    // The renewed credential, or none once the token was refused (read-ahead then goes anonymously).
    let readAs = reader.flatMap { reader in revocation.map { $0.usable(reader) } ?? reader }
    await readAhead.consider(batch, query: kind.query, as: readAs)
    // Rows that are a reader's own (some may be private) never become shared card positions.
    warming.sent(batch, list: kind, shared: revoked || owner == .everyone)
    return Fetched(
      batch: batch, largest: batch.measure, total: batch.reportedTotal, revoked: revoked, readAs: readAs)
  }

  /// The view of a fetched batch now; on a full page (`resultCount` given) it is the page's first.
  func view(_ fetched: Fetched, kind: ListKind, firstOnPage: Bool, resultCount: Int? = nil) -> BatchView {
    BatchView(
      batch: fetched.batch, kind: kind, batchSize: batchSize, prefetchMargin: prefetchMargin,
      largestStars: fetched.largest, now: now(), resultCount: resultCount, firstOnPage: firstOnPage)
  }
}
