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
