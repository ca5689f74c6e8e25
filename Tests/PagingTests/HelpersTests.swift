import Testing

@testable import Paging

@Suite("Prefetch and details")
struct HelpersTests {
  @Test(
    "the trigger sits margin cards before the last",
    arguments: [(20, 5, 14), (20, 0, 19), (3, 5, 0), (1, 2, 0), (20, -1, 19)])
  func prefetch(batchCount: Int, margin: Int, expected: Int) {
    #expect(prefetchIndex(batchCount: batchCount, margin: margin) == expected)
  }

  @Test("an empty batch has no trigger")
  func prefetchEmpty() {
    #expect(prefetchIndex(batchCount: 0, margin: 5) == nil)
  }

  struct Doubler: DetailLoader {
    func details(for item: Int) async throws -> Int {
      if item < 0 { throw SourceFailure.rateLimited(until: 42) }
      return item * 2
    }
  }

  @Test("details load, and failures become unavailable with a retry time")
  func detailStates() async {
    let classify: @Sendable (any Error) -> ListError = { error in
      if case SourceFailure.rateLimited(let until) = error {
        return ListError(message: "limited", retryable: true, retryAfter: until)
      }
      return .generic(error)
    }
    let loaded = await DetailState.load(21, with: Doubler(), classify: classify)
    guard case .loaded(let value) = loaded else {
      Issue.record("expected loaded")
      return
    }
    #expect(value == 42)
    let failed = await DetailState.load(-1, with: Doubler(), classify: classify)
    guard case .unavailable(let reason, let retryAfter) = failed else {
      Issue.record("expected unavailable")
      return
    }
    #expect(reason == "limited")
    #expect(retryAfter == 42)
  }
}
