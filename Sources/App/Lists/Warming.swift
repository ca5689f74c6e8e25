import Clocks
import Credentials
import GitHub
import HTTP
import Paging
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Warms the GitHub cache for cards a reader is about to see, so their details answer at once:
/// - the avatars of every card in a batch just sent (the browser fetches those of nearly every card
///   it holds anyway, and the avatar host has no rate limit);
/// - the star histories of the first screen of a full page, as soon as its list is known, so that
///   they are on their way while the page streams and its scripts start (the browser asks for them
///   at once: they are on screen), under the same budget rule as below;
/// - when a card's star history is asked for, the histories of the cards after it in the same list,
///   while the core budget is plentiful (at least half the window left after them): as many as the
///   reader passes in `leadSeconds` at their recent pace, at most `maxAhead` and at least
///   `historiesAhead`. The request for a history marks where the reader is, so at most that many
///   warmed cards go unseen, few for a slow reader, whose whole session warms proportionally fewer.
final class Warming: Sendable {
  /// What was warmed or held back.
  enum Outcome: String, Sendable, CaseIterable {
    /// Avatars requested for cards just sent.
    case avatar
    /// Star histories requested before the reader asked: ahead of them, or a page's first screen.
    case history
    /// Histories not warmed because the core budget was not plentiful.
    case budget
  }

  /// Avatars warmed at once per batch (the rest wait for a free slot).
  static let avatarConcurrency = 6
  /// The size the cards show at 1x.
  static let avatarSize = 80
  /// Seconds of reading warmed after the furthest card asked for. The page already asks about a
  /// second ahead of the reader, so this only bridges the wait for its next request; each card warmed
  /// beyond is one the reader may never see.
  static let leadSeconds = 0.5
  /// The most histories warmed after one request, unless `historiesAhead` asks for more: the pace is
  /// measured from request arrivals, which bunch up under load and can read several times too fast.
  static let maxAhead = 8
  /// Cards on the first screen of a page (5 dense cards fill a 1280×900 window).
  static let firstScreen = 6

  let client: GitHubClient
  /// Histories warmed after a requested one (0 turns history warming off).
  let historiesAhead: Int
  /// Whether avatars of sent cards are warmed.
  let avatars: Bool
  private let index = Mutex(CardPositions(capacity: 50_000))
  private let counts = Mutex<[Outcome: Int]>([:])
  private let recentAvatars = Mutex(RecentIDs(capacity: 8192, lifetime: 300))
  /// The reader's pace (monotonic seconds) and the budget's reset (Unix seconds), injected so tests
  /// control them.
  private let time: TimeSource

  init(
    client: GitHubClient, historiesAhead: Int, avatars: Bool,
    time: TimeSource
  ) {
    self.client = client
    self.historiesAhead = historiesAhead
    self.avatars = avatars
    self.time = time
  }

  /// Notes where each card of `batch` sits in `list` (unless its rows are one reader's own: then
  /// `shared` is false and they never become shared positions) and warms their avatars in the
  /// background (an avatar is public whoever's the card is).
  func sent(_ batch: ListBatch<Repository>, list: ListKind, shared: Bool = true) {
    guard !batch.items.isEmpty else { return }
    let items = batch.items
    if historiesAhead > 0, shared {
      // A batch sent again (another reader, a reload) is usually known already: its first and last
      // cards tell, and the rest need not be hashed again. Their names are made before the lock is
      // taken, so that the other loop waits for the lookups only.
      let (a, z) = (items.startIndex, items.endIndex - 1)
      let first = Self.name(of: items[a].item)
      let last = Self.name(of: items[z].item)
      index.withLock { index in
        if let first, let last, index.holds(first, list: list, position: items[a].position),
          index.holds(last, list: list, position: items[z].position)
        {
          return
        }
        for position in items.indices {
          guard let name = Self.name(of: items[position].item) else { continue }
          index.record(name, list: list, position: items[position].position)
        }
      }
    }
    guard avatars else { return }
    let now = time.monotonicSeconds()
    // The owners' ids (not `owner`, which builds four strings), read outside the lock.
    var owners: [Int] = []
    owners.reserveCapacity(items.count)
    for index in items.indices {
      if let id = items[index].item.ownerID, id > 0 { owners.append(id) }
    }
    // Only avatars not warmed lately: a batch sent again (a reload, another reader) costs no tasks.
    let ids = recentAvatars.withLock { recent in owners.filter { recent.claim($0, now: now) } }
    guard !ids.isEmpty else { return }
    record(.avatar, ids.count)
    Task { [client] in
      await withTaskGroup(of: Void.self) { group in
        var next = ids.makeIterator()
        for _ in 0..<Self.avatarConcurrency {
          guard let id = next.next() else { break }
          group.addTask { _ = try? await client.avatar(userID: id, size: Self.avatarSize) }
        }
        while await group.next() != nil {
          guard let id = next.next() else { continue }
          group.addTask { _ = try? await client.avatar(userID: id, size: Self.avatarSize) }
        }
      }
    }
  }

  /// `owner/name` of a card, its owner's login read in place; nil without an owner.
  private static func name(of repository: Repository) -> RepoName? {
    guard let login = repository.ownerLogin else { return nil }
    return RepoName(owner: login, repo: repository.name)
  }

  /// After a full page's first batch is known: warms the histories of its first `firstScreen` cards,
  /// if the core budget allows. Only the decision is awaited.
  func pageSent(_ batch: ListBatch<Repository>, as reader: ReaderCredential? = nil) async {
    guard historiesAhead > 0 else { return }
    let names = batch.items.prefix(Self.firstScreen).compactMap { Self.name(of: $0.item) }
    await warmHistories(names, as: reader)
  }

  /// After the history of `owner/repo` was asked for: warms the histories of the cards after it, if the
  /// core budget allows. Only the decision is awaited.
  func historyRequested(owner: String, repo: String, as reader: ReaderCredential? = nil) async {
    guard historiesAhead > 0 else { return }
    let now = time.monotonicSeconds()
    let ahead = index.withLock { index in
      let name = RepoName(owner: owner, repo: repo)
      let count = Self.ahead(pace: index.pace(at: name, now: now), minimum: historiesAhead)
      return index.successors(of: name, count: count)
    }
    await warmHistories(ahead, as: reader)
  }

  /// Starts fetching the histories of `names` in the background while the core budget is plentiful:
  /// a signed-in reader's on their own budget.
  private func warmHistories(_ names: [RepoName], as reader: ReaderCredential?) async {
    guard !names.isEmpty else { return }
    let core = await client.rateLimitSnapshots(for: reader).first { $0.resource == .core }
    guard Self.plentiful(core, spending: names.count, now: time.epochSeconds()) else {
      record(.budget, 1)
      return
    }
    record(.history, names.count)
    for name in names {
      Task { [client] in
        _ = try? await client.starHistory(
          owner: name.owner, repo: name.repo, perPage: StarsView.maxWeeks, as: reader)
      }
    }
  }

  /// How many histories to warm for a reader going `pace` cards a second: `leadSeconds` of reading,
  /// at most `maxAhead` and at least `minimum`.
  static func ahead(pace: Double, minimum: Int) -> Int {
    guard pace.isFinite, pace > 0 else { return minimum }
    return max(minimum, Int(min(Double(maxAhead), (pace * leadSeconds).rounded(.up))))
  }

  /// Whether `spending` more core calls leave at least half the window: true when nothing is known
  /// yet or the window has reset, false while a secondary limit blocks the resource.
  static func plentiful(_ snapshot: RateLimitSnapshot?, spending: Int, now: Int) -> Bool {
    guard let snapshot else { return true }
    if let until = snapshot.secondaryUntil, now < until { return false }
    if now >= snapshot.reset { return true }
    return snapshot.remaining - spending >= (snapshot.limit + 1) / 2
  }

  private func record(_ outcome: Outcome, _ count: Int) {
    counts.withLock { $0[outcome, default: 0] += count }
  }

  /// How many avatars or histories were warmed, or how often the budget held histories back.
  func count(_ outcome: Outcome) -> Int { counts.withLock { $0[outcome] ?? 0 } }

  /// Appends the warming counters in Prometheus text format.
  func render(into out: inout MetricsText) {
    out.family(
      "reposcroll_warmed_total", .counter,
      "Cache warming: avatars and histories requested, and times the core budget held histories back.")
    for outcome in Outcome.allCases {
      out.sample("reposcroll_warmed_total", labels: "outcome=\"\(outcome.rawValue)\"", count(outcome))
    }
  }
}
