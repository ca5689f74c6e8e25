import Synchronization

/// The position at which each id was first listed, per list, for the lists read by windows: a row
/// whose key moved with the walk's direction can meet a later window again, and is then dropped.
///
/// Bounded: at most `capacity` lists (the least recently used goes first) and `maxIDs` ids per list
/// (a list past it starts afresh). It is what this process saw: another instance, or this one after
/// forgetting a list, lists such a row again (the page's script drops ids already in its feed).
public final class ListedIDs<Key: Hashable & Sendable, ID: Hashable & Sendable>: Sendable {
  struct Entry {
    var first: [ID: Int]
    var used: Int
  }

  struct State {
    var lists: [Key: Entry] = [:]
    var uses = 0
  }

  let state = Mutex(State())
  let capacity: Int
  let maxIDs: Int

  /// A memory of at most `capacity` lists of at most `maxIDs` ids each.
  public init(capacity: Int = 32, maxIDs: Int = 50_000) {
    self.capacity = max(1, capacity)
    self.maxIDs = max(1, maxIDs)
  }

  /// How many lists are remembered.
  public var count: Int { state.withLock { $0.lists.count } }

  /// For each of `ids`, in order, whether it may be listed at the next position, counting from
  /// `position + 1`: false when the list listed it at an earlier position. Those it admits are
  /// remembered at their positions (an id listed again at an earlier position keeps the earlier).
  public func admit(_ ids: [ID], after position: Int, in key: Key) -> [Bool] {
    state.withLock { state in
      state.uses += 1
      var entry = state.lists.removeValue(forKey: key) ?? Entry(first: [:], used: 0)
      if state.lists.count >= capacity,
        let oldest = state.lists.min(by: { $0.value.used < $1.value.used })?.key
      {
        state.lists[oldest] = nil
      }
      if entry.first.count + ids.count > maxIDs { entry.first.removeAll(keepingCapacity: true) }
      entry.used = state.uses
      var next = position
      var admitted: [Bool] = []
      admitted.reserveCapacity(ids.count)
      for id in ids {
        let at = next < Int.max ? next + 1 : Int.max
        if let earlier = entry.first[id], earlier < at {
          admitted.append(false)
          continue
        }
        entry.first[id] = at
        admitted.append(true)
        next = at
      }
      state.lists[key] = entry
      return admitted
    }
  }
}
