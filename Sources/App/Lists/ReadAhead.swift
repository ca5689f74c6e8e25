import Clocks
import Credentials
import GitHub
import Paging
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Fetches the next 100-item search page before a batch needs it, so fast readers do not wait on
/// GitHub, while the search budget is plentiful: never into the last fifth of the window.
final class ReadAhead: Sendable {
  /// What became of one chance to read ahead.
  enum Outcome: String, Sendable, CaseIterable {
    /// A page was requested (a cached or in-flight page costs nothing upstream).
    case started
    /// The search budget was too low.
    case budget
    /// The page was started within the search lifetime: it is cached or on its way, so nothing was
    /// asked (not even the rate-limit snapshot).
    case recent
  }

  /// A page of a query (or a window of it, past GitHub's cap) that read-ahead started, for everyone
  /// (public answers are shared) or for one reader whose answers are their own.
  private struct Started: Hashable {
    let query: SearchQuery
    let page: Int
    var owner = AnswerOwner.everyone
    var window: KeyWindow? = nil
  }

  /// Most pages remembered as started; the memory is cleared when full (a page then costs one more
  /// snapshot check, nothing upstream while it is cached).
  static let rememberedPages = 256

  /// The share of the search window that read-ahead leaves for readers' own requests.
  static let reservedShare = 0.2

  let client: GitHubClient
  /// Rows ahead of a batch's end that should already be in the cache (0 disables read-ahead).
  let lead: Int
  /// Seconds a started page stays fresh in the cache (the search lifetime).
  let freshFor: Int
  /// Where "now" (Unix seconds) comes from.
  private let time: TimeSource
  private let counts = Mutex<[Outcome: Int]>([:])
  /// When each recently started page was started: a fragment whose read-ahead page is here is
  /// answered by one lock, without an await on the client.
  private let started = Mutex<[Started: Int]>([:])

  init(
    client: GitHubClient, lead: Int, freshFor: Int = 60,
    time: TimeSource
  ) {
    self.client = client
    self.lead = lead
    self.freshFor = freshFor
    self.time = time
  }

  /// After serving `batch` of `query`: starts fetching the page the next batches will need when it
  /// is near and the budget allows, as `reader` on their own budget (nil: anonymously). Only the
  /// decision is awaited; the fetch runs on its own.
  func consider(_ batch: ListBatch<Repository>, query: SearchQuery, as reader: ReaderCredential? = nil) async
  {
    guard
      let page = readAheadPage(
        nextCursor: batch.nextCursor, lead: lead, pageSize: GitHubSearchSource.pageSize, total: batch.total)
    else { return }
    let key = Started(query: query, page: page, owner: client.owner(of: reader))
    guard await begin(key, as: reader) else { return }
    Task { [client] in
      _ = try? await client.searchRepositories(
        query, page: page, perPage: GitHubSearchSource.pageSize, as: reader)
    }
  }

  /// Past GitHub's cap: when the rows ahead of a reader reach past the window already read, runs
  /// `work` (reading the windows, slices and probes of the next `lead` rows from `window` on) in the
  /// background, once per window within the search lifetime and while the budget is plentiful.
  func consider(
    window: KeyWindow, query: SearchQuery, as reader: ReaderCredential?,
    work: @escaping @Sendable () async -> Void
  ) async {
    guard lead > 0 else { return }
    let key = Started(query: query, page: 0, owner: client.owner(of: reader), window: window)
    guard await begin(key, as: reader) else { return }
    Task { await work() }
  }

  /// Whether read-ahead of `key` should start now (recorded as started), or not (recent, or the
  /// budget is short).
  private func begin(_ key: Started, as reader: ReaderCredential?) async -> Bool {
    let now = time.epochSeconds()
    let recent = started.withLock { pages in
      pages[key].map { now >= $0 && now - $0 < freshFor } ?? false
    }
    if recent {
      record(.recent)
      return false
    }
    let search = await client.rateLimitSnapshots(for: reader).first { $0.resource == .search }
    guard Self.allows(search, now: now) else {
      record(.budget)
      return false
    }
    record(.started)
    started.withLock { pages in
      if pages.count >= Self.rememberedPages { pages.removeAll(keepingCapacity: true) }
      pages[key] = now
    }
    return true
  }

  /// Whether one more search call leaves at least `reservedShare` of the window: true when nothing is
  /// known yet or the window has reset, false while a secondary limit blocks searching.
  static func allows(_ snapshot: RateLimitSnapshot?, now: Int) -> Bool {
    guard let snapshot else { return true }
    if let until = snapshot.secondaryUntil, now < until { return false }
    if now >= snapshot.reset { return true }
    let reserve = Int((Double(max(0, snapshot.limit)) * reservedShare).rounded(.up))
    return snapshot.remaining - 1 >= reserve
  }

  private func record(_ outcome: Outcome) { counts.withLock { $0[outcome, default: 0] += 1 } }

  /// How often each outcome happened.
  func count(_ outcome: Outcome) -> Int { counts.withLock { $0[outcome] ?? 0 } }

  /// Appends the read-ahead counters in Prometheus text format.
  func render(into out: inout MetricsText) {
    out.family(
      "reposcroll_read_ahead_total", .counter, "Chances to read the next search page ahead, by outcome.")
    for outcome in Outcome.allCases {
      out.sample("reposcroll_read_ahead_total", labels: "outcome=\"\(outcome.rawValue)\"", count(outcome))
    }
  }
}
