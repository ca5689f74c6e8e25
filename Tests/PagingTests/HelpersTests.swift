import TestSupport
import Testing

@testable import Paging

@Suite("Prefetch and details", .timeLimit(.minutes(2)))
struct HelpersTests {
  @Test(
    "the trigger sits margin cards before the last",
    arguments: [(20, 5, 14), (20, 0, 19), (3, 5, 0), (1, 2, 0), (20, -1, 19)])
  func prefetch(batchCount: Int, margin: Int, expected: Int) {
    expectEqual(prefetchIndex(batchCount: batchCount, margin: margin), expected)
  }

  @Test("an empty batch has no trigger")
  func prefetchEmpty() {
    expectEqual(prefetchIndex(batchCount: 0, margin: 5), nil)
  }

  @Test(
    "read-ahead names the next page only when the lead reaches past the pages read",
    arguments: [
      (60, 40, 1000, nil), (61, 40, 1000, 2), (80, 40, 1000, 2), (100, 40, 1000, 2), (120, 40, 1000, nil),
      (160, 40, 1000, nil), (180, 40, 1000, 3), (880, 40, 1000, 10), (960, 40, 1000, nil),
      (80, 40, 100, nil), (80, 40, 101, 2), (20, 0, 1000, nil), (20, 250, 1000, 2),
    ] as [(Int, Int, Int, Int?)])
  func readAhead(nextCursor: Int, lead: Int, total: Int, expected: Int?) {
    expectEqual(readAheadPage(nextCursor: nextCursor, lead: lead, pageSize: 100, total: total), expected)
  }

  @Test("no read-ahead after the list ended, for a zero cursor or at integer limits")
  func readAheadEdges() {
    expectEqual(readAheadPage(nextCursor: nil, lead: 40, pageSize: 100, total: 1000), nil)
    expectEqual(readAheadPage(nextCursor: 0, lead: 40, pageSize: 100, total: 1000), nil)
    expectEqual(readAheadPage(nextCursor: Int.max - 10, lead: 40, pageSize: 100, total: Int.max), nil)
    expectEqual(readAheadPage(nextCursor: 60, lead: 40, pageSize: 0, total: 1000), nil)
  }
}
