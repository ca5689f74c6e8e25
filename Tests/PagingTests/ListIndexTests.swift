import Synchronization
import TestSupport
import Testing

@testable import Paging

/// A clock the tests move by hand.
final class ManualClock: Sendable {
  private let seconds = Atomic<Int>(0)
  var now: Int { seconds.load(ordering: .relaxed) }
  func advance(by delta: Int) { seconds.add(delta, ordering: .relaxed) }
}

/// Pages of rows where later pages repeat some earlier ids (as shifting upstream results do).
func shiftingPages(count: Int, pageSize: Int, seed: UInt64) -> [[Row]] {
  var state = seed
  func next() -> UInt64 {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return state >> 33
  }
  var pages: [[Row]] = []
  var id = 0
  for _ in 0..<count {
    var page: [Row] = []
    for _ in 0..<pageSize {
      if id > 5 && next() % 7 == 0 {
        page.append(Row(id: Int(next() % UInt64(id)) + 1))
      } else {
        id += 1
        page.append(Row(id: id))
      }
    }
    pages.append(page)
  }
  return pages
}

@Suite("List index", .timeLimit(.minutes(2)))
struct ListIndexTests {
  static func same(_ a: ListBatch<Row>, _ b: ListBatch<Row>) -> Bool {
    a.items.map(\.item.id) == b.items.map(\.item.id) && a.items.map(\.position) == b.items.map(\.position)
      && a.nextCursor == b.nextCursor && a.total == b.total && a.state == b.state && a.cursor == b.cursor
  }

  @Test(
    "batches through the index equal walks from page 1, whatever order cursors come in", arguments: [1, 2, 3])
  func sameBatchesInAnyOrder(seed: UInt64) async {
    let pages = shiftingPages(count: 12, pageSize: 10, seed: seed)
    let plain = PagedList(source: CachingSource(pages: pages, pageSize: 10, totalCount: 115), batchSize: 7)
    let indexed = PagedList(source: CachingSource(pages: pages, pageSize: 10, totalCount: 115), batchSize: 7)
    let index = ListIndex<String, Int>(lifetime: 60, clock: { 0 })
    var cursors = Array(stride(from: 0, through: 130, by: 7)) + [3, 50, 99, 200]
    var state = seed
    cursors.sort { _, _ in
      state = state &* 6_364_136_223_846_793_005 &+ 1
      return state >> 63 == 1
    }
    for cursor in cursors + cursors {
      let expected = await plain.batch(after: cursor)
      let got = await indexed.batch(after: cursor, index: index, key: "q")
      expectTrue(Self.same(got, expected), "cursor \(cursor)")
    }
  }

  @Test("once a list is indexed, a batch at any depth reads only the pages its items come from")
  func flatCostWithDepth() async {
    let source = CachingSource(count: 1000, pageSize: 100, totalCount: 48_213, resultCap: 1000)
    let list = PagedList(source: source)
    let index = ListIndex<String, Int>(lifetime: 60, clock: { 0 })
    var cursor: Int? = 0
    while let next = cursor { cursor = await list.batch(after: next, index: index, key: "q").nextCursor }
    await source.clearReads()
    for (cursor, page) in [(20, 1), (480, 5), (980, 10), (620, 7)] {
      let batch = await list.batch(after: cursor, index: index, key: "q")
      expectEqual(batch.items.first?.position, cursor + 1)
      await expectEqual(source.reads, [page], "after \(cursor)")
      await source.clearReads()
    }
    let end = await list.batch(after: 1000, index: index, key: "q")
    expectTrue(end.state == .end(.capReached(1000)) && end.items.isEmpty)
    await expectEqual(source.reads, [10])
  }

  @Test("a reload, the index's lifetime and a changed page each send the next batch back to page 1")
  func reloadExpiryAndChangedPages() async {
    let pages = shiftingPages(count: 6, pageSize: 10, seed: 9)
    let source = CachingSource(pages: pages, pageSize: 10, totalCount: 60)
    let list = PagedList(source: source, batchSize: 5)
    let clock = ManualClock()
    let index = ListIndex<String, Int>(lifetime: 60, clock: { clock.now })
    _ = await list.batch(after: 40, index: index, key: "q")
    await source.clearReads()
    _ = await list.batch(after: 40, index: index, key: "q")
    let reads = await source.reads
    expectTrue(!reads.isEmpty && reads.first != 1 && reads.count <= 2)

    await source.clearReads()
    _ = await list.batch(after: 40, reload: true, index: index, key: "q")
    await expectEqual(source.reads.first, 1)

    clock.advance(by: 60)
    await source.clearReads()
    _ = await list.batch(after: 40, index: index, key: "q")
    await expectEqual(source.reads.first, 1)

    // Page 1 now repeats ids that pages 2… held: rows move up, and the index must not hide it.
    let changed = pages[1].prefix(5) + pages[0].prefix(5)
    await source.change(page: 1, to: Array(changed))
    let fresh = PagedList(
      source: CachingSource(pages: [Array(changed)] + pages.dropFirst(), pageSize: 10, totalCount: 60),
      batchSize: 5)
    for cursor in [0, 5, 40] {
      expectTrue(
        Self.same(await list.batch(after: cursor, index: index, key: "q"), await fresh.batch(after: cursor)))
    }
  }

  @Test("the least recently used list goes first when the index is full")
  func boundedByCapacity() async {
    let list = PagedList(source: CachingSource(count: 50, pageSize: 10, totalCount: 50), batchSize: 5)
    let index = ListIndex<String, Int>(capacity: 2, lifetime: 60, clock: { 0 })
    _ = await list.batch(after: 0, index: index, key: "a")
    _ = await list.batch(after: 0, index: index, key: "b")
    _ = await list.batch(after: 5, index: index, key: "a")
    _ = await list.batch(after: 0, index: index, key: "c")
    expectEqual(index.count, 2)
    expectTrue(index.plan("b", cursor: 0, batchSize: 5) == nil)
    expectTrue(index.plan("a", cursor: 0, batchSize: 5) != nil)
  }
}
