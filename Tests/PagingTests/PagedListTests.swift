import TestSupport
import Testing

@testable import Paging

@Suite("PagedList", .timeLimit(.minutes(2)))
struct PagedListTests {
  @Test("reading rows 1-1000 at 100 per page costs exactly 10 upstream fetches and stops at the cap")
  func thousandRows() async {
    let source = CachingSource(count: 1000, pageSize: 100, totalCount: 48_213, resultCap: 1000)
    let batches = await walk(PagedList(source: source))
    let ids = batches.flatMap { $0.items.map(\.item.id) }
    expectEqual(ids, Array(1...1000))
    expectEqual(batches.flatMap { $0.items.map(\.position) }, Array(1...1000))
    expectEqual(batches.count, 50)
    expectEqual(batches.last?.state, .end(.capReached(1000)))
    expectTrue(batches.dropLast().allSatisfy { $0.state == .items && $0.total == 1000 })
    await expectEqual(source.upstreamFetches, Array(1...10))
  }

  @Test("ids repeated on later (shifting) pages are dropped and positions stay contiguous")
  func dedupeAcrossShiftingPages() async {
    let pages = [[1, 2, 3, 4, 5], [5, 6, 7, 2, 8], [8, 9, 10, 11, 12], [12, 13]].map { $0.map(Row.init(id:)) }
    let source = CachingSource(pages: pages, pageSize: 5, totalCount: 18)
    let batches = await walk(PagedList(source: source, batchSize: 4))
    let ids = batches.flatMap { $0.items.map(\.item.id) }
    expectEqual(ids, Array(1...13))
    expectEqual(batches.flatMap { $0.items.map(\.position) }, Array(1...13))
    expectEqual(batches.last?.state, .end(.noMoreResults(13)))
    expectEqual(batches.last?.total, 13)
    await expectEqual(source.upstreamFetches, [1, 2, 3, 4])
  }

  @Test("a batch only fetches the pages it needs and never past the total count")
  func totalCountEnd() async {
    let source = CachingSource(count: 45, pageSize: 100, totalCount: 45)
    let batches = await walk(PagedList(source: source))
    expectEqual(batches.map(\.items.count), [20, 20, 5])
    expectEqual(batches.map(\.nextCursor), [20, 40, nil])
    expectEqual(batches.last?.state, .end(.noMoreResults(45)))
    await expectEqual(source.upstreamFetches, [1])
  }

  @Test("a total that is an exact multiple of the page size ends without asking for an extra page")
  func exactMultiple() async {
    let source = CachingSource(count: 40, pageSize: 20, totalCount: 40)
    let batches = await walk(PagedList(source: source))
    expectEqual(batches.map(\.items.count), [20, 20])
    expectEqual(batches.last?.state, .end(.noMoreResults(40)))
    await expectEqual(source.upstreamFetches, [1, 2])
  }

  @Test("no results is the empty state")
  func empty() async {
    let source = CachingSource(pages: [], pageSize: 100, totalCount: 0)
    let batch = await PagedList(source: source).batch(after: 0)
    expectEqual(batch.state, .empty)
    expectTrue(batch.items.isEmpty)
    expectEqual(batch.nextCursor, nil)
    await expectEqual(source.upstreamFetches, [1])
  }

  @Test("thrown errors go through the classifier, and a retry at the same cursor gives the same batch")
  func errorThenRetry() async {
    let source = CachingSource(count: 300, pageSize: 100, totalCount: 300)
    await source.failOnce(page: 2, with: .rateLimited(until: 1_700_000_000))
    let list = PagedList(source: source, batchSize: 20) { error in
      if case SourceFailure.rateLimited(let until) = error {
        return ListError(message: "rate limited", retryable: true, retryAfter: until)
      }
      return ListError(message: "broken", retryable: false)
    }
    let failed = await list.batch(after: 100)
    expectEqual(
      failed.state, .error(ListError(message: "rate limited", retryable: true, retryAfter: 1_700_000_000)))
    expectTrue(failed.items.isEmpty && failed.nextCursor == nil && failed.cursor == 100)
    let retried = await list.batch(after: failed.cursor)
    expectEqual(retried.state, .items)
    expectEqual(retried.items.map(\.item.id), Array(101...120))
    expectEqual(retried.items.map(\.position), Array(101...120))
    expectEqual(retried.nextCursor, 120)
  }

  @Test("the default classifier keeps the error retryable")
  func defaultClassifier() async {
    let source = CachingSource(count: 10, pageSize: 100, totalCount: 10)
    await source.failOnce(page: 1, with: .broken)
    let batch = await PagedList(source: source).batch(after: 0)
    guard case .error(let error) = batch.state else {
      Issue.record("expected an error state, got \(batch.state)")
      return
    }
    expectTrue(error.retryable)
    expectEqual(error.retryAfter, nil)
    expectTrue(error.message.contains("broken"))
  }

  @Test("reload bypasses the cache only for pages that can contribute to the batch")
  func reloadScope() async {
    let source = CachingSource(count: 300, pageSize: 100, totalCount: 300)
    _ = await PagedList(source: source).batch(after: 0, reload: true)
    _ = await PagedList(source: source).batch(after: 150, reload: true)
    await expectEqual(source.reloads, [1, 2])
    await expectEqual(source.upstreamFetches, [1, 2])
  }

  @Test("a batch straddling two pages joins them", arguments: [90, 95, 99])
  func straddle(cursor: Int) async {
    let source = CachingSource(count: 300, pageSize: 100, totalCount: 300)
    let batch = await PagedList(source: source).batch(after: cursor)
    expectEqual(batch.items.map(\.item.id), Array((cursor + 1)...(cursor + 20)))
    await expectEqual(source.upstreamFetches, [1, 2])
  }

  @Test("a cursor past the end gives the end state without items")
  func pastEnd() async {
    let source = CachingSource(count: 30, pageSize: 100, totalCount: 30)
    let batch = await PagedList(source: source).batch(after: 500)
    expectTrue(batch.items.isEmpty)
    expectEqual(batch.state, .end(.noMoreResults(30)))
  }

  @Test("the same machinery pages a second, unrelated source")
  func secondSource() async {
    let words = (1...23).map { "w\($0)" } + ["w3", "w4"]
    let list = PagedList(source: WordSource(words: words), batchSize: 5)
    let batches = await walk(list)
    expectEqual(batches.flatMap { $0.items.map(\.item.text) }, (1...23).map { "w\($0)" })
    expectEqual(batches.last?.state, .end(.noMoreResults(23)))
  }
}

/// A source whose pages are given one by one, each with its own total and incomplete flag.
struct ScriptedPages: PageSource {
  struct Page: Sendable {
    var ids: [Int]
    var total: Int
    var incomplete = false
  }
  let pages: [Page]
  var upstreamPageSize: Int { 10 }

  func fetchPage(_ number: Int, reload: Bool) async throws -> SourcePage<Row> {
    guard number <= pages.count else { return SourcePage(items: [], totalCount: 0, resultCap: 50) }
    let page = pages[number - 1]
    return SourcePage(
      items: page.ids.map(Row.init(id:)), totalCount: page.total, resultCap: 50, incomplete: page.incomplete)
  }
}

@Suite("Short and incomplete pages", .timeLimit(.minutes(2)))
struct ShortPageTests {
  @Test("a short page mid-list does not end it while the total says more exist")
  func shortPageDoesNotEndTheList() async {
    let source = ScriptedPages(pages: [
      .init(ids: Array(1...3), total: 40, incomplete: true), .init(ids: Array(11...20), total: 40),
      .init(ids: Array(21...27), total: 40), .init(ids: Array(31...40), total: 40),
    ])
    let batches = await walk(PagedList(source: source, batchSize: 5))
    let ids = batches.flatMap { $0.items.map(\.item.id) }
    expectEqual(ids, Array(1...3) + Array(11...20) + Array(21...27) + Array(31...40))
    expectEqual(batches.last?.state, .end(.noMoreResults(30)))
    expectTrue(batches.dropLast().allSatisfy { $0.total == 40 })
    expectTrue(
      batches.allSatisfy { $0.incomplete }, "the first page was incomplete, so every later tail says so")
  }

  @Test("an empty page ends the list even though the total says more exist")
  func emptyPageEnds() async {
    let source = ScriptedPages(pages: [.init(ids: Array(1...4), total: 45), .init(ids: [], total: 45)])
    let batches = await walk(PagedList(source: source, batchSize: 3))
    expectEqual(batches.flatMap { $0.items.map(\.item.id) }, [1, 2, 3, 4])
    expectEqual(batches.last?.state, .end(.noMoreResults(4)))
    expectEqual(batches.last?.total, 4, "the true end gives the exact count")
    expectTrue(!batches.contains { $0.incomplete })
  }

  @Test("the set size never shrinks mid-list when a later page reports a smaller total")
  func setSizeNeverShrinks() async {
    let source = ScriptedPages(pages: [
      .init(ids: Array(1...10), total: 1677), .init(ids: Array(11...14), total: 30, incomplete: true),
      .init(ids: Array(21...30), total: 30), .init(ids: Array(31...40), total: 30),
      .init(ids: Array(41...50), total: 30),
    ])
    let batches = await walk(PagedList(source: source, batchSize: 4))
    let sizes = batches.dropLast().map(\.total)
    expectTrue(sizes.allSatisfy { $0 == 50 }, "capped at 50 from the first page: \(sizes)")
    expectEqual(batches.last?.state, .end(.capReached(50)))
    expectEqual(batches.map(\.incomplete), batches.map { $0.cursor >= 8 })
  }

  @Test("pages of repeats still end through the barren-page guard")
  func barrenPagesEnd() async {
    let source = ScriptedPages(pages: Array(repeating: .init(ids: [1, 2], total: 50), count: 5))
    let batches = await walk(PagedList(source: source, batchSize: 10))
    expectEqual(batches.count, 1)
    expectEqual(batches[0].state, .end(.noMoreResults(2)))
  }
}
