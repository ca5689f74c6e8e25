/// A repository by owner and name, as the star-history route addresses it.
struct RepoName: Hashable, Sendable {
  var owner: String
  var repo: String
}

/// Which repository sits at which position of which list, for the most recent `capacity` cards sent,
/// so the cards after one can be found. A repository in several lists is found in the latest.
struct CardPositions {
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
  /// Whether `position` of `list` is already known to hold `name`.
  func holds(_ name: RepoName, list: ListKind, position: Int) -> Bool {
    names[Slot(list: list, position: position)] == name
  }

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
