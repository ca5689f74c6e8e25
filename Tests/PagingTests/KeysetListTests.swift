import TestSupport
import Testing

@testable import Paging

/// Reading a list by windows of its key: every row once, in key order, past any cap, at any depth.
@Suite("Keyset lists", .timeLimit(.minutes(2)))
struct KeysetListTests {
  /// Follows next cursors from the top to the end; returns the rows in order and the batches' reads.
  static func walk(
    _ source: WindowRows, memory: ListedIDs<String, Int>? = nil, excluded: Set<Int> = [],
    batches limit: Int = 2000
  ) async throws -> (rows: [PositionedItem<KeyedRow>], reads: KeysetList<WindowRows>.Reads, last: ListState) {
    var list = KeysetList(source: source, batchSize: 20)
    list.excluded = excluded
    var cursor: WindowCursor? = .start
    var rows: [PositionedItem<KeyedRow>] = []
    var reads = KeysetList<WindowRows>.Reads()
    var state = ListState.items
    var batches = 0
    while let at = cursor {
      batches += 1
      try #require(batches <= limit, "the walk does not end")
      let batch = await list.batch(at: at, memory: memory, key: "list")
      rows += batch.batch.items
      reads.pages += batch.reads.pages
      reads.probes += batch.reads.probes
      state = batch.batch.state
      cursor = batch.next
    }
    return (rows, reads, state)
  }

  /// Whether the keys never go back.
  static func monotone(_ rows: [PositionedItem<KeyedRow>], descending: Bool) -> Bool {
    zip(rows, rows.dropFirst()).allSatisfy {
      descending ? $0.item.key >= $1.item.key : $0.item.key <= $1.item.key
    }
  }

  @Test(
    "the walk lists every row once, keys monotone, with or without visible keys, in both directions",
    arguments: [(true, true), (true, false), (false, true), (false, false)])
  func complete(descending: Bool, visible: Bool) async throws {
    let source = WindowRows(WindowRows.catalog(count: 6_000), descending: descending, keysVisible: visible)
    let expected = source.ordered
    let walked = try await Self.walk(source)
    expectEqual(walked.rows.count, expected.count)
    expectEqual(Set(walked.rows.map(\.item.id)), Set(expected.map(\.id)))
    expectEqual(walked.rows.map(\.position), Array(1...expected.count))
    expectTrue(Self.monotone(walked.rows, descending: descending))
    expectEqual(walked.last, .end(.noMoreResults(expected.count)))
    // The 0 bucket (a third of the rows) was read in creation-time slices.
    let zeros = expected.filter { $0.key == 0 }.count
    expectTrue(zeros > 1000)
    let slices = source.reads.filter { $0.keys == .just(0) && $0.slice != nil }
    expectTrue(slices.count >= zeros / 100, "slices of at most a page cover the bucket")
    // One read per page of rows and a little more: ties re-read, probes, bucket edges.
    let upstream = source.reads.count
    expectTrue(upstream <= expected.count / 100 * 2 + 40, "\(upstream) upstream reads, \(walked.reads)")
  }

  @Test("a cursor from a walk gives the same rows again, reading only its own windows")
  func cursorsAreDeterministic() async throws {
    let source = WindowRows(WindowRows.catalog(count: 4_000), descending: true)
    let list = KeysetList(source: source, batchSize: 20)
    var cursor = WindowCursor.start
    var cursors: [WindowCursor] = []
    var batches: [[Int]] = []
    for _ in 0..<150 {
      let batch = await list.batch(at: cursor, memory: nil as ListedIDs<String, Int>?, key: "")
      cursors.append(cursor)
      batches.append(batch.batch.items.map(\.item.id))
      guard let next = batch.next else { break }
      cursor = next
    }
    expectEqual(cursors.count, 150)
    for index in [3, 60, 149] {
      let before = source.reads.count
      let again = await list.batch(at: cursors[index], memory: nil as ListedIDs<String, Int>?, key: "")
      expectEqual(again.batch.items.map(\.item.id), batches[index])
      expectTrue(source.reads.count - before <= 3, "a deep batch reads its windows, not the list before it")
      expectEqual(again.batch.items.first?.position, cursors[index].position + 1)
    }
  }

  @Test("an old after=N on the first window passes N rows through the windows that follow")
  func oldOffsets() async throws {
    let source = WindowRows(WindowRows.catalog(count: 3_000), descending: true)
    let walked = try await Self.walk(source)
    let list = KeysetList(source: source, batchSize: 20)
    for after in [40, 460, 980] {
      let batch = await list.batch(
        at: WindowCursor(window: .first, skip: after, position: after),
        memory: nil as ListedIDs<String, Int>?,
        key: "")
      expectEqual(batch.batch.items.map(\.item.id), walked.rows[after..<(after + 20)].map(\.item.id))
      expectEqual(batch.batch.items.first?.position, after + 1)
    }
  }

  @Test("with keys moving between reads: no row twice, every unmoved row once, and the walk ends")
  func moving() async throws {
    for descending in [true, false] {
      let source = WindowRows(WindowRows.catalog(count: 5_000), descending: descending, drift: 8, seed: 3)
      let all = Set(source.ordered.map(\.id))
      let walked = try await Self.walk(source, memory: ListedIDs())
      let ids = walked.rows.map(\.item.id)
      expectEqual(Set(ids).count, ids.count, "no duplicate")
      let unmoved = all.subtracting(source.moved)
      expectTrue(source.moved.count > 500, "keys moved throughout the walk")
      expectTrue(unmoved.subtracting(ids).isEmpty, "\(unmoved.subtracting(ids).count) unmoved rows missed")
      expectEqual(walked.rows.map(\.position), Array(1...ids.count))
    }
  }

  @Test("without the memory, a moved row may come twice, but unmoved rows still come exactly once")
  func movingWithoutMemory() async throws {
    let source = WindowRows(WindowRows.catalog(count: 5_000), descending: false, drift: 6, seed: 5)
    let walked = try await Self.walk(source)
    var seen: [Int: Int] = [:]
    for row in walked.rows { seen[row.item.id, default: 0] += 1 }
    let unmoved = Set(source.ordered.map(\.id)).subtracting(source.moved)
    expectTrue(
      unmoved.filter { seen[$0] != 1 }.isEmpty,
      "\(unmoved.filter { seen[$0] != 1 }.count) unmoved rows not once")
  }

  @Test("more rows with one key and one creation second than a page holds are read by offset")
  func oneSecondBucket() async throws {
    var rows = (0..<250).map { KeyedRow(id: $0 + 1, key: 3, created: 1_600_000_000) }
    rows += (0..<50).map { KeyedRow(id: 1_000 + $0, key: 9, created: 1_500_000_000 + $0) }
    rows += (0..<150).map { KeyedRow(id: 2_000 + $0, key: 0, created: 1_400_000_000 + $0 * 3600) }
    let source = WindowRows(rows, descending: true)
    let walked = try await Self.walk(source)
    expectEqual(walked.rows.count, rows.count)
    expectEqual(Set(walked.rows.map(\.item.id)).count, rows.count)
    expectTrue(Self.monotone(walked.rows, descending: true))
  }

  @Test("a continuation skips the rows listed before it and numbers on from them")
  func continuation() async throws {
    let source = WindowRows(WindowRows.catalog(count: 2_500), descending: true)
    let ordered = source.ordered
    // As if another order had listed 300 rows spread over the list first.
    let before = Set(ordered.enumerated().filter { $0.offset % 7 == 3 }.prefix(300).map(\.element.id))
    var list = KeysetList(source: source, batchSize: 20)
    list.excluded = before
    var cursor: WindowCursor? = WindowCursor(window: .first, position: 300, total: 2_500)
    var ids: [Int] = []
    var positions: [Int] = []
    while let at = cursor {
      let batch = await list.batch(at: at, memory: nil as ListedIDs<String, Int>?, key: "")
      ids += batch.batch.items.map(\.item.id)
      positions += batch.batch.items.map(\.position)
      expectTrue(batch.batch.items.isEmpty || batch.batch.total == 2_500 || batch.next == nil)
      cursor = batch.next
    }
    expectEqual(Set(ids), Set(ordered.map(\.id)).subtracting(before))
    expectEqual(ids.count, 2_200)
    expectEqual(positions, Array(301...2_500))
  }

  @Test("an empty list is empty; a failure keeps the cursor for a retry")
  func emptyAndFailure() async throws {
    let empty = WindowRows([], descending: true)
    let batch = await KeysetList(source: empty, batchSize: 20).batch(
      at: .start, memory: nil as ListedIDs<String, Int>?, key: "")
    expectEqual(batch.batch.state, .empty)
    expectEqual(batch.next, nil)
    let failing = KeysetList(source: Failing(), batchSize: 20)
    let cursor = WindowCursor(
      window: KeyWindow(keys: Interval(lower: nil, upper: 40)), skip: 3, position: 1_203)
    let failed = await failing.batch(at: cursor, memory: nil as ListedIDs<String, Int>?, key: "")
    expectEqual(failed.next, nil)
    expectEqual(failed.batch.cursor, 1_203)
    guard case .error = failed.batch.state else {
      Issue.record("expected an error state")
      return
    }
  }

  @Test("slicing and key ranges saturate on extreme values instead of trapping")
  func extremes() {
    let time = IntervalWalk.creationTimes
    for value in [Int.min, Int.min + 1, -1, 0, Int.max - 1, Int.max] {
      _ = time.interval(past: value, sample: [value, Int.min, Int.max], rows: Int.max)
      _ = time.interval(past: nil, sample: [value, 0], rows: 0)
      _ = time.next(after: Interval(lower: value, upper: Int.max), rows: Int.max, seen: value)
      _ = time.next(after: Interval(lower: Int.min, upper: value), rows: 0, seen: nil)
      _ = time.narrowed(Interval(lower: value, upper: nil), rows: Int.max, seen: Int.max)
      _ = time.narrowed(Interval(lower: Int.min, upper: Int.max), rows: 101, seen: value)
      let up = IntervalWalk(downward: false, edge: Int.max)
      _ = up.next(after: Interval(lower: value, upper: Int.max - 1), rows: 1, seen: nil)
      _ = up.narrowed(Interval(lower: value, upper: nil), rows: 5_000, seen: nil)
    }
    // A slice that held 400 rows is narrowed towards 80 and keeps its near end.
    let slice = Interval(lower: 1_600_000_000, upper: 1_600_086_399)
    let narrowed = time.narrowed(slice, rows: 400, seen: nil)
    expectEqual(narrowed?.upper, slice.upper)
    expectTrue((narrowed?.lower ?? 0) > slice.lower ?? 0)
    // An empty slice widens the next one, just older.
    let next = time.next(after: slice, rows: 0, seen: nil)
    expectEqual(next?.upper, 1_599_999_999)
    // Below GitHub's first repository the slice is open, and ends the bucket.
    let last = time.next(after: Interval(lower: 1_191_300_000, upper: 1_191_400_000), rows: 3, seen: nil)
    expectEqual(last?.lower, nil)
    expectEqual(time.next(after: Interval(lower: nil, upper: 1_191_400_000), rows: 3, seen: nil), nil)
  }
}

/// A source whose every read fails.
struct Failing: WindowSource {
  struct Broken: Error {}
  var pageSize: Int { 100 }
  var resultCap: Int { 1000 }
  var descending: Bool { true }
  var keys: ClosedRange<Int> { 0...1000 }
  var keysVisible: Bool { true }
  func fetch(_ window: KeyWindow, page: Int, reload: Bool) async throws -> SourcePage<KeyedRow> {
    throw Broken()
  }
  func key(of item: KeyedRow) -> Int { item.key }
  func created(of item: KeyedRow) -> Int { item.created }
}
