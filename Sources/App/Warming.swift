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
/// - when a card's star history is asked for, the histories of the next `historiesAhead` cards of the
///   same list, while the core budget is plentiful (at least half the window left after them). The
///   request for a history marks where the reader is, so at most that many warmed cards go unseen.
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

  let client: GitHubClient
  /// Histories warmed after a requested one (0 turns history warming off).
  let historiesAhead: Int
  /// Whether avatars of sent cards are warmed.
  let avatars: Bool
  private let index = Mutex(ListIndex(capacity: 50_000))
  private let counts = Mutex<[Outcome: Int]>([:])

  init(client: GitHubClient, historiesAhead: Int, avatars: Bool) {
    self.client = client
    self.historiesAhead = historiesAhead
    self.avatars = avatars
  }

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
    let ahead = index.withLock {
      $0.successors(of: RepoName(owner: owner, repo: repo), count: historiesAhead)
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
