import GitHub
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
/// - when a card's star history is asked for, the histories of the cards after it in the same list,
///   while the core budget is plentiful (at least half the window left after them): as many as the
///   reader passes in `leadSeconds` at their recent pace, at least `historiesAhead` and at most
///   `maxAhead`. The request for a history marks where the reader is, so at most that many warmed
///   cards go unseen, few for a slow reader, whose whole session warms proportionally fewer.
final class Warming: Sendable {
  /// What was warmed or held back.
  enum Outcome: String, Sendable, CaseIterable {
    /// Avatars requested for cards just sent.
    case avatar
    /// Star histories requested ahead of the reader.
    case history
    /// Histories not warmed because the core budget was not plentiful.
    case budget
  }

  /// Avatars warmed at once per batch (the rest wait for a free slot).
  static let avatarConcurrency = 6
  /// The size the cards show at 1x.
  static let avatarSize = 80
  /// Seconds of reading a warmed history should cover (GitHub answers in well under one).
  static let leadSeconds = 1.0
  /// The most histories warmed after one request.
  static let maxAhead = 16

  let client: GitHubClient
  /// Histories warmed after a requested one (0 turns history warming off).
  let historiesAhead: Int
  /// Whether avatars of sent cards are warmed.
  let avatars: Bool
  private let index = Mutex(ListIndex(capacity: 50_000))
  private let counts = Mutex<[Outcome: Int]>([:])
  /// Seconds on a monotonic clock, injected so tests control the reader's pace.
  private let clock: @Sendable () -> Double

  init(
    client: GitHubClient, historiesAhead: Int, avatars: Bool,
    clock: @escaping @Sendable () -> Double = Warming.monotonicSeconds
  ) {
    self.client = client
    self.historiesAhead = historiesAhead
    self.avatars = avatars
    self.clock = clock
  }

  /// Seconds since an arbitrary start, from the continuous clock.
  @Sendable static func monotonicSeconds() -> Double {
    let since = ContinuousClock.now - start
    return Double(since.components.seconds) + Double(since.components.attoseconds) * 1e-18
  }
  private static let start = ContinuousClock.Instant.now

  /// Notes where each card of `batch` sits in `list` and warms their avatars in the background.
  func sent(_ batch: ListBatch<Repository>, list: ListKind) {
    guard !batch.items.isEmpty else { return }
    if historiesAhead > 0 {
      index.withLock { index in
        for entry in batch.items {
          guard let owner = entry.item.owner?.login else { continue }
          index.record(RepoName(owner: owner, repo: entry.item.name), list: list, position: entry.position)
        }
      }
    }
    guard avatars else { return }
    let ids = batch.items.compactMap { $0.item.owner?.id }.filter { $0 > 0 }
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

  /// After the history of `owner/repo` was asked for: warms the histories of the cards after it, if the
  /// core budget allows. Only the decision is awaited.
  func historyRequested(owner: String, repo: String) async {
    guard historiesAhead > 0 else { return }
    let now = clock()
    let ahead = index.withLock { index in
      let name = RepoName(owner: owner, repo: repo)
      let count = Self.ahead(pace: index.pace(at: name, now: now), minimum: historiesAhead)
      return index.successors(of: name, count: count)
    }
    guard !ahead.isEmpty else { return }
    let core = await client.rateLimitSnapshots().first { $0.resource == RateLimitResource.core.rawValue }
    guard Self.plentiful(core, spending: ahead.count, now: Int(Date().timeIntervalSince1970)) else {
      record(.budget, 1)
      return
    }
    record(.history, ahead.count)
    for name in ahead {
      Task { [client] in
        _ = try? await client.starHistory(owner: name.owner, repo: name.repo, perPage: StarsView.maxWeeks)
      }
    }
  }

  /// How many histories to warm for a reader going `pace` cards a second: `leadSeconds` of reading,
  /// at least `minimum` and at most `maxAhead`.
  static func ahead(pace: Double, minimum: Int) -> Int {
    guard pace.isFinite, pace > 0 else { return minimum }
    return min(maxAhead, max(minimum, Int((pace * leadSeconds).rounded(.up))))
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
  func render(into out: inout String) {
    out += "# HELP reposcroll_warmed_total Cache warming: avatars and histories requested, and times the"
    out += " core budget held histories back.\n# TYPE reposcroll_warmed_total counter\n"
    for outcome in Outcome.allCases {
      out += "reposcroll_warmed_total{outcome=\"\(outcome.rawValue)\"} \(count(outcome))\n"
    }
  }
}

/// A repository by owner and name, as the star-history route addresses it.
struct RepoName: Hashable, Sendable {
  var owner: String
  var repo: String
}

/// Which repository sits at which position of which list, for the most recent `capacity` cards sent,
/// so the cards after one can be found. A repository in several lists is found in the latest.
struct ListIndex {
  struct Slot: Hashable {
    var list: ListKind
    var position: Int
  }

  let capacity: Int
  private var names: [Slot: RepoName] = [:]
  private var slots: [RepoName: Slot] = [:]
  /// Slots in the order they were recorded, oldest from `head`, for eviction.
  private var order: [Slot] = []
  private var head = 0
  /// The furthest position asked for in each list, when, and the reader's pace there.
  private var paces: [ListKind: Pace] = [:]

  /// Where a reader of one list has got to and how fast they go.
  struct Pace {
    var position: Int
    var time: Double
    /// Cards per second, smoothed over the recent requests.
    var cardsPerSecond: Double
  }

  /// The most lists whose pace is kept (the oldest are forgotten beyond it).
  static let maxPaces = 1024
  /// Positions above the furthest request that mean another reader (the browser asks for nothing
  /// much further back than a viewport).
  static let newReaderGap = 50
  /// The shortest time over which progress is turned into a pace, in seconds.
  static let paceWindow = 0.5

  init(capacity: Int) { self.capacity = max(1, capacity) }

  /// Cards remembered.
  var count: Int { names.count }

  /// Remembers that `name` sits at `position` of `list`.
  mutating func record(_ name: RepoName, list: ListKind, position: Int) {
    let slot = Slot(list: list, position: position)
    if let old = names[slot], slots[old] == slot { slots[old] = nil }
    if names.updateValue(name, forKey: slot) == nil { order.append(slot) }
    slots[name] = slot
    while names.count > capacity, head < order.count {
      let oldest = order[head]
      head += 1
      if let evicted = names.removeValue(forKey: oldest), slots[evicted] == oldest { slots[evicted] = nil }
    }
    if head > capacity {
      order.removeFirst(head)
      head = 0
    }
  }

  /// Notes that `name` was asked for at `now` (seconds) and returns its list's reader pace in cards
  /// per second: 0 until a reader has moved on from an earlier request. Only progress down the list
  /// counts, so cards asked for out of order (visible first) do not slow it; a request far above the
  /// furthest one is a new reader, who starts afresh.
  mutating func pace(at name: RepoName, now: Double) -> Double {
    guard let slot = slots[name] else { return 0 }
    guard var pace = paces[slot.list] else {
      if paces.count >= Self.maxPaces, let oldest = paces.min(by: { $0.value.time < $1.value.time }) {
        paces[oldest.key] = nil
      }
      paces[slot.list] = Pace(position: slot.position, time: now, cardsPerSecond: 0)
      return 0
    }
    if slot.position + Self.newReaderGap < pace.position {
      paces[slot.list] = Pace(position: slot.position, time: now, cardsPerSecond: 0)
      return 0
    }
    let elapsed = now - pace.time
    // Requests come in bursts (several cards at once), so the pace is taken over half a second at least.
    if slot.position > pace.position, elapsed >= Self.paceWindow {
      let rate = min(1000, Double(slot.position - pace.position) / elapsed)
      pace.cardsPerSecond = pace.cardsPerSecond == 0 ? rate : (pace.cardsPerSecond + rate) / 2
      pace.position = slot.position
      pace.time = now
      paces[slot.list] = pace
    }
    return pace.cardsPerSecond
  }

  /// The repositories at the `count` positions after `name` in its list, as far as they are known.
  func successors(of name: RepoName, count: Int) -> [RepoName] {
    guard let slot = slots[name], count > 0 else { return [] }
    var result: [RepoName] = []
    for step in 1...count {
      let (position, overflow) = slot.position.addingReportingOverflow(step)
      guard !overflow, let next = names[Slot(list: slot.list, position: position)] else { break }
      result.append(next)
    }
    return result
  }
}
