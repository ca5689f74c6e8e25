/// Ids claimed within the last `lifetime` seconds, at most about `capacity` of them: warming asks for
/// each avatar once per lifetime instead of once per batch sent.
struct RecentIDs {
  let capacity: Int
  /// Seconds a claim holds.
  let lifetime: Double
  private var claimed: [Int: Double] = [:]

  init(capacity: Int, lifetime: Double) {
    self.capacity = max(1, capacity)
    self.lifetime = lifetime
  }

  /// True (and remembered) when `id` was not claimed within the lifetime before `now`.
  mutating func claim(_ id: Int, now: Double) -> Bool {
    if let at = claimed[id], now - at < lifetime { return false }
    if claimed.count >= capacity {
      claimed = claimed.filter { now - $0.value < lifetime }
      // Still full of fresh claims: forget them all rather than grow (at worst some repeat work).
      if claimed.count >= capacity { claimed.removeAll(keepingCapacity: true) }
    }
    claimed[id] = now
    return true
  }
}
