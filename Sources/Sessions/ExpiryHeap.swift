/// A binary min-heap of (until, name): the soonest expiry on top.
struct ExpiryHeap {
  private var items: [(until: Int, name: String)] = []

  init() {}

  /// A heap of `items` (built in O(n)).
  init(_ items: [(until: Int, name: String)]) {
    self.items = items
    var index = items.count / 2
    while index > 0 {
      index -= 1
      siftDown(index)
    }
  }

  var count: Int { items.count }
  var min: (until: Int, name: String)? { items.first }

  mutating func push(until: Int, name: String) {
    items.append((until, name))
    var child = items.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard items[child].until < items[parent].until else { break }
      items.swapAt(child, parent)
      child = parent
    }
  }

  mutating func popMin() {
    guard !items.isEmpty else { return }
    items.swapAt(0, items.count - 1)
    items.removeLast()
    siftDown(0)
  }

  private mutating func siftDown(_ start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < items.count, items[left].until < items[smallest].until { smallest = left }
      if right < items.count, items[right].until < items[smallest].until { smallest = right }
      if smallest == parent { return }
      items.swapAt(parent, smallest)
      parent = smallest
    }
  }
}
