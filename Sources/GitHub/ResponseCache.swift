/// A least-recently-used cache bounded by the bytes its entries account for.
///
/// Expired entries stay until evicted so they can be revalidated (ETag) or served stale on failure.
/// Lookups, inserts and evictions are O(1): a dictionary into an index-linked list of slots.
struct ResponseCache<Value> {
  /// One cached response.
  struct Entry {
    var value: Value
    var etag: String?
    /// Clock seconds after which the entry must be revalidated or refetched.
    var expires: Double
    /// Bytes this entry counts against the bound.
    var cost: Int
  }

  private struct Node {
    var key: String
    var entry: Entry
    var newer: Int
    var older: Int
  }

  let capacity: Int
  private var slots: [Node?] = []
  private var freeSlots: [Int] = []
  private var index: [String: Int] = [:]
  private var newest = -1
  private var oldest = -1
  private(set) var totalBytes = 0

  init(capacity: Int) { self.capacity = max(0, capacity) }

  var count: Int { index.count }

  /// The entry, marked most recently used.
  mutating func get(_ key: String) -> Entry? {
    guard let slot = index[key], let node = slots[slot] else { return nil }
    moveToFront(slot)
    return node.entry
  }

  /// The entry without touching its recency.
  func peek(_ key: String) -> Entry? {
    guard let slot = index[key] else { return nil }
    return slots[slot]?.entry
  }

  /// Inserts or replaces, then evicts the oldest entries until within the bound.
  /// An entry larger than the whole bound is not stored (and any older version is dropped).
  mutating func set(_ key: String, _ entry: Entry) {
    remove(key)
    guard entry.cost <= capacity else { return }
    let node = Node(key: key, entry: entry, newer: -1, older: newest)
    let slot: Int
    if let free = freeSlots.popLast() {
      slot = free
      slots[slot] = node
    } else {
      slot = slots.count
      slots.append(node)
    }
    if newest >= 0 { slots[newest]?.newer = slot }
    newest = slot
    if oldest < 0 { oldest = slot }
    index[key] = slot
    totalBytes += entry.cost
    while totalBytes > capacity, oldest >= 0, let victim = slots[oldest] {
      remove(victim.key)
    }
  }

  /// Extends a revalidated entry's lifetime (and ETag) and marks it recently used.
  mutating func refresh(_ key: String, expires: Double, etag: String?) {
    guard let slot = index[key] else { return }
    slots[slot]?.entry.expires = expires
    if let etag { slots[slot]?.entry.etag = etag }
    moveToFront(slot)
  }

  /// Removes the entry, if present.
  mutating func remove(_ key: String) {
    guard let slot = index.removeValue(forKey: key), let node = slots[slot] else { return }
    unlink(slot, node)
    slots[slot] = nil
    freeSlots.append(slot)
    totalBytes -= node.entry.cost
  }

  private mutating func unlink(_ slot: Int, _ node: Node) {
    if node.newer >= 0 { slots[node.newer]?.older = node.older } else { newest = node.older }
    if node.older >= 0 { slots[node.older]?.newer = node.newer } else { oldest = node.newer }
  }

  private mutating func moveToFront(_ slot: Int) {
    guard slot != newest, let node = slots[slot] else { return }
    unlink(slot, node)
    slots[slot]?.newer = -1
    slots[slot]?.older = newest
    if newest >= 0 { slots[newest]?.newer = slot }
    newest = slot
    if oldest < 0 { oldest = slot }
  }
}

extension ResponseCache.Entry: Sendable where Value: Sendable {}
