import GitHubDouble
import TestSupport
import Testing

@testable import App

/// What a walk past GitHub's cap costs in search calls, as a guard against making it dearer: a key
/// range is read by one-page windows (the ties at each page's last key are read again by the next), a
/// tie bucket larger than a page (`stars:0`, and low counts in a large catalog) by creation-time
/// slices of at most a page, with their probes. The figures are today's, not the goal of one
/// call per 100 rows (see the note of the stop that added this).
@Suite("Windows past the cap: search calls per 100 rows", .timeLimit(.minutes(10)))
struct WindowCostTests {
  @Test("a walk of stars:>=0 by stars costs no more search calls per 100 rows than today")
  func callsPerHundredRows() async throws {
    let double = AppHarness.smallDouble {
      $0.repositoryCount = 6_000
      $0.ownerCount = 600
    }
    let configure: (inout AppConfiguration) -> Void = {
      $0.batchSize = 100
      $0.accessLog = false
      // Every search is one a batch asked for.
      $0.readAhead = 0
    }
    try await AppHarness.with(double: double, time: AppHarness.stoppedWall, configure: configure) { h in
      let expected = h.double.enumerate(q: "stars:>=0", sort: .stars, ascending: false)
      double.reset()
      var html = try await h.text("/?q=stars%3A%3E%3D0&sort=stars&order=desc")
      var ids = WindowWalkTests.numbers(after: ["data-repo-id=\""], in: html)[0]
      // Rows and calls of the fragments of key ranges, and of tie buckets' slices.
      var (rows, calls, bucketRows, bucketCalls) = (0, 0, 0, 0)
      var fragments = 0
      while let next = HTMLScan.nextFragment(html) {
        fragments += 1
        try #require(fragments < 1_000, "the walk does not end")
        let before = double.counters().calls(.search)
        html = try await h.text(next)
        let cards = WindowWalkTests.numbers(after: ["data-repo-id=\""], in: html)[0]
        let spent = double.counters().calls(.search) - before
        if next.contains("&created=") {
          (bucketRows, bucketCalls) = (bucketRows + cards.count, bucketCalls + spent)
        } else {
          (rows, calls) = (rows + cards.count, calls + spent)
        }
        ids += cards
      }
      expectTrue(ids.count == expected.count && Set(ids) == Set(expected), "every row once")
      expectTrue(rows >= 1_000 && bucketRows >= 1_000, "\(rows) rows of key ranges, \(bucketRows) in buckets")
      // Ranges: 19 calls for 1,500 rows here. A fragment that enters a tie bucket counts the reads
      // that find it and its overview.
      let perHundred = Double(calls) * 100 / Double(rows)
      expectTrue(perHundred <= 1.3, "\(calls) calls for \(rows) rows of key ranges")
      // Slices, at most a page each, placed by samples, with probes: 81 calls for 3,931 rows here.
      let inBuckets = Double(bucketCalls) * 100 / Double(bucketRows)
      expectTrue(inBuckets <= 2.2, "\(bucketCalls) calls for \(bucketRows) rows in tie buckets")
      print(
        "window cost: \(calls) calls for \(rows) rows of key ranges, \(bucketCalls) for \(bucketRows) in buckets"
      )
    }
  }
}
