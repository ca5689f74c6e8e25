import CurlClient
import Foundation
import GitHub
import GitHubDouble
import HTTP
import TestSupport
import Testing

@testable import App

/// Past GitHub's 1,000-result cap: following the next links from the first page to the end lists the
/// double's whole enumeration of the matching set, in the reader's order, each row once.
@Suite("Windows past the cap", .timeLimit(.minutes(10)))
struct WindowWalkTests {
  /// Batches of 100 for the whole-catalog walks: the windows are the same whatever the batch size
  /// (batches straddle them more often), and a walk takes a fifth of the requests.
  /// The small catalog (1,500 repositories, more than 1,000 matches of `stars:>=0`): every order's walk
  /// goes past the cap through tie buckets larger than a window (a page). Read only.
  static let small = AppHarness.smallDouble()

  static func wholeWalk(_ configuration: inout AppConfiguration) {
    configuration.batchSize = 100
    configuration.accessLog = false
  }

  /// What a walk saw.
  struct Walk {
    var ids: [Int] = []
    var positions: [Int] = []
    var setsizes: Set<Int> = []
    var fragments: [String] = []
    var dividers: [String] = []
    var last = ""
  }

  /// Reads the first page of `query`, then follows each fragment's next link to the end.
  static func walk(_ harness: AppHarness, _ query: String, limit: Int = 3_000) async throws -> Walk {
    var walk = Walk()
    var html = try await harness.text("/?" + query)
    while true {
      // Read by bytes: a regular expression over 200 KB a fragment outweighs the app in a debug build.
      let numbers = Self.numbers(after: ["data-repo-id=\"", "aria-posinset=\"", "aria-setsize=\""], in: html)
      walk.ids += numbers[0]
      walk.positions += numbers[1]
      walk.setsizes.formUnion(numbers[2])
      if html.contains("data-divider") {
        walk.dividers += html.matches(of: #/data-divider>([^<]*)</#).map { String($0.1) }
      }
      let tail = html.range(of: "<div class=\"tail\"", options: .backwards).map {
        String(html[$0.lowerBound...])
      }
      guard let next = HTMLScan.nextFragment(tail ?? html) else {
        walk.last = html
        return walk
      }
      walk.fragments.append(next)
      try #require(walk.fragments.count <= limit, "the walk does not end")
      html = try await harness.text(next)
    }
  }

  /// For each marker, the (possibly negative) whole numbers that follow its occurrences, in order.
  static func numbers(after markers: [String], in html: String) -> [[Int]] {
    let bytes = Array(html.utf8)
    let patterns = markers.map { Array($0.utf8) }
    var found = Array(repeating: [Int](), count: markers.count)
    var index = 0
    while index < bytes.count {
      var matched = false
      for k in 0..<patterns.count {
        let pattern = patterns[k]
        guard bytes[index] == pattern[0], index + pattern.count < bytes.count else { continue }
        var same = true
        for offset in 1..<pattern.count where bytes[index + offset] != pattern[offset] {
          same = false
          break
        }
        guard same else { continue }
        var at = index + pattern.count
        let negative = bytes[at] == UInt8(ascii: "-")
        if negative { at += 1 }
        var value = 0
        while at < bytes.count, bytes[at] >= 0x30, bytes[at] <= 0x39 {
          value = value * 10 + Int(bytes[at] - 0x30)
          at += 1
        }
        found[k].append(negative ? -value : value)
        index = at
        matched = true
        break
      }
      if !matched { index += 1 }
    }
    return found
  }

  /// A repository's value of a sort key in the catalog.
  static func key(_ sort: DoubleSearchSort, _ double: GitHubDouble) -> [Int: Int] {
    Dictionary(
      uniqueKeysWithValues: double.catalog.publicRepositories.map { repository in
        let value =
          switch sort {
          case .stars: repository.stars
          case .forks: repository.forks
          case .helpWantedIssues: repository.helpWantedIssues
          case .updated: repository.updatedAt
          }
        return (repository.id, value)
      })
  }

  @Test(
    "every order with a range qualifier, both directions: the whole matching set, once, key monotone",
    arguments: [DoubleSearchSort.stars, .forks, .helpWantedIssues], ["desc", "asc"])
  func ranged(sort: DoubleSearchSort, order: String) async throws {
    try await AppHarness.with(double: Self.small, time: AppHarness.stoppedWall, configure: Self.wholeWalk) {
      h in
      let expected = h.double.enumerate(q: "stars:>=0", sort: sort, ascending: order == "asc")
      expectTrue(expected.count > 1_000)
      let walked = try await Self.walk(h, "q=stars%3A%3E%3D0&sort=\(sort.rawValue)&order=\(order)")
      expectEqual(walked.ids.count, expected.count, "no duplicate, no gap")
      expectEqual(Set(walked.ids), Set(expected))
      expectEqual(walked.positions, Array(1...walked.ids.count))
      let keys = Self.key(sort, h.double)
      let values = walked.ids.map { keys[$0] ?? -1 }
      expectEqual(
        values, (order == "asc" ? values.sorted() : values.sorted(by: >)), "the key never goes back")
      expectTrue(walked.last.contains("That’s all \(Formatting.grouped(expected.count))."))
      expectTrue(walked.last.contains("data-end=\"all\""))
      // Every card's set size is the true total, never the cap.
      expectEqual(walked.setsizes, [expected.count])
      expectTrue(walked.dividers.isEmpty)
      if sort == .stars {
        // The stars:0 bucket (more than a page) is read in creation-time slices.
        let zeros = Set(expected).intersection(keys.filter { $0.value == 0 }.keys).count
        expectTrue(zeros > 100)
        expectTrue(walked.fragments.contains { $0.contains("&stars=0&created=") })
      }
    }
  }

  @Test(
    "best match and updated: GitHub's own first 1,000, then every other match by stars behind one divider",
    arguments: [nil, DoubleSearchSort.updated])
  func continued(sort: DoubleSearchSort?) async throws {
    try await AppHarness.with(double: Self.small, time: AppHarness.stoppedWall, configure: Self.wholeWalk) {
      h in
      let own = h.double.enumerate(q: "stars:>=0", sort: sort, ascending: false)
      let byStars = h.double.enumerate(q: "stars:>=0", sort: .stars, ascending: false)
      let sortParameter = sort.map { "&sort=\($0.rawValue)&order=desc" } ?? ""
      let walked = try await Self.walk(h, "q=stars%3A%3E%3D0" + sortParameter)
      expectEqual(Array(walked.ids.prefix(1000)), Array(own.prefix(1000)))
      let first = Set(own.prefix(1000))
      // The others by stars (ties in any order: a tie bucket is read newest first).
      let rest = Array(walked.ids.dropFirst(1000))
      expectEqual(Set(rest), Set(byStars.filter { !first.contains($0) }))
      let stars = Self.key(.stars, h.double)
      let values = rest.map { stars[$0] ?? -1 }
      expectEqual(values, values.sorted(by: >), "the continuation goes by stars, descending")
      expectTrue(walked.ids.count == own.count && Set(walked.ids).count == own.count)
      expectEqual(walked.positions, Array(1...walked.ids.count))
      let order = sort == nil ? "best match" : "last update"
      expectEqual(
        walked.dividers,
        [
          "GitHub ranks only the first 1,000 by \(order); the other \(Formatting.grouped(own.count - 1000)) follow by stars."
        ])
      expectEqual(walked.setsizes, [own.count])
      expectTrue(walked.last.contains("That’s all \(Formatting.grouped(own.count))."))
    }
  }

  @Test("with star counts moving during the walk: no duplicate, no unmoved row missed, and the walk ends")
  func moving() async throws {
    for order in ["desc", "asc"] {
      let double = AppHarness.smallDouble {
        $0.repositoryCount = 2_000
        $0.faults.starDrift = 10
      }
      try await AppHarness.with(double: double, time: AppHarness.stoppedWall, configure: Self.wholeWalk) {
        h in
        let all = Set(double.catalog.publicRepositories.filter { !$0.fork }.map(\.id))
        let walked = try await Self.walk(h, "q=stars%3A%3E%3D0&sort=stars&order=\(order)")
        expectEqual(Set(walked.ids).count, walked.ids.count, "no duplicate (\(order))")
        let moved = double.driftedRepositoryIDs()
        expectTrue(moved.count > 200, "stars moved throughout the walk")
        let missed = all.subtracting(moved).subtracting(walked.ids)
        expectTrue(missed.isEmpty, "\(missed.count) unmoved repositories missed (\(order))")
        expectTrue(walked.last.contains("That’s all"))
      }
    }
  }

  @Test("without JavaScript, the rel=next pages walk past row 1,000 to the end")
  func noScript() async throws {
    try await AppHarness.with(double: Self.small, time: AppHarness.stoppedWall, configure: Self.wholeWalk) {
      h in
      let expected = h.double.enumerate(q: "stars:>=0", sort: .stars, ascending: false)
      expectTrue(expected.count > 1_200)
      var html = try await h.text("/?q=stars%3A%3E%3D0&sort=stars&order=desc")
      var ids: [Int] = []
      var pages = 0
      while true {
        ids += HTMLScan.cards(html).map(\.id)
        guard let next = HTMLScan.nextHref(html) else { break }
        expectTrue(next.hasPrefix("/?q=stars%3A%3E%3D0&sort=stars&order=desc&page=\(pages + 2)"))
        pages += 1
        try #require(pages < 200)
        html = try await h.text(next)
        expectTrue(html.hasSuffix("</html>\n"))
      }
      expectTrue(ids.count == expected.count && Set(ids) == Set(expected))
      expectTrue(html.contains("That’s all"))
    }
  }

  @Test(
    "forged cursors are a 400 that says what was expected",
    arguments: [
      ("&after=1001", "after must be a whole number from 0 to 1000"),
      ("&after=20&stars=abc", "stars must be a range"), ("&after=20&stars=-1", "stars must be a range"),
      ("&after=20&stars=9..3", "stars must be a range"),
      ("&after=20&stars=99999999999999999999999", "stars must be a range"),
      ("&after=20&forks=*..9", "go by stars, not forks"), ("&after=20&skip=3", "need a stars window"),
      ("&after=20&stars=*..9&skip=1000", "skip must be a whole number from 0 to 999"),
      ("&after=20&stars=*..9&created=*..*", "created needs a single stars value"),
      ("&after=20&stars=0&created=2024-02-30T00:00:00Z..*", "created must be a range of UTC times"),
      ("&after=20&stars=0&created=2024-01-01..*", "created must be a range of UTC times"),
      ("&after=-5&stars=*..9", "after must be a whole number"),
      ("&after=9223372036854775807&stars=*..9", "after must be a whole number"),
      ("&after=20&stars=*..9&of=x", "of must be a whole number"),
    ])
  func forged(suffix: String, message: String) async throws {
    try await AppHarness.with(double: AppHarness.smallDouble()) { h in
      let response = try await h.get("/fragments/results?q=stars%3A%3E%3D0&sort=stars&order=desc" + suffix)
      expectEqual(response.status.code, 400)
      expectTrue(String(decoding: response.body, as: UTF8.self).contains(message))
      // A full page reads its position from `page`; its window parameters are read as strictly.
      if message.hasPrefix("after") { return }
      let page = try await h.get("/?q=stars%3A%3E%3D0&sort=stars&order=desc&page=3" + suffix)
      expectEqual(page.status.code, 400)
      expectTrue(String(decoding: page.body, as: UTF8.self).contains(message))
    }
  }
}

/// A tie bucket larger than GitHub's cap walked whole, and a fragment deep in it read on a fresh app.
@Suite("Windows past the cap, a bucket larger than the cap", .timeLimit(.minutes(10)))
struct LargeBucketWalkTests {
  @Test(
    "stars:0 holds more than 1,000: every row once, in creation-time slices; a fragment deep in it costs a window or two"
  )
  func largeBucket() async throws {
    // 4,000 repositories: more than 1,000 of the matches of stars:>=0 have no star.
    let double = AppHarness.smallDouble {
      $0.repositoryCount = 4_000
      $0.ownerCount = 400
    }
    var deep: String?
    try await AppHarness.with(
      double: double, time: AppHarness.stoppedWall, configure: WindowWalkTests.wholeWalk
    ) {
      h in
      let expected = h.double.enumerate(q: "stars:>=0", sort: .stars, ascending: false)
      let walked = try await WindowWalkTests.walk(h, "q=stars%3A%3E%3D0&sort=stars&order=desc")
      expectTrue(walked.ids.count == expected.count && Set(walked.ids) == Set(expected))
      expectEqual(walked.positions, Array(1...expected.count))
      let keys = WindowWalkTests.key(.stars, h.double)
      let values = walked.ids.map { keys[$0] ?? -1 }
      expectEqual(values, values.sorted(by: >))
      let zeros = values.filter { $0 == 0 }.count
      expectTrue(zeros > 1_000, "a bucket GitHub could not list by offset")
      expectEqual(walked.setsizes, [expected.count])
      expectTrue(walked.last.contains("That’s all \(Formatting.grouped(expected.count))."))
      // The bucket is read through its creation-time slices.
      let inBucket = walked.fragments.filter { $0.contains("&stars=0&created=") && $0.contains("&skip=") }
      expectTrue(inBucket.count > 5)
      // A fragment in the middle of the bucket, for the fresh app below (a cursor names a window,
      // whatever the batch size that wrote it).
      deep = inBucket.isEmpty ? nil : inBucket[inBucket.count / 2]
    }
    let fragment = try #require(deep)
    double.reset()
    try await AppHarness.with(double: double, time: AppHarness.stoppedWall, configure: { $0.readAhead = 0 }) {
      h in
      let html = try await h.text(fragment)
      expectEqual(HTMLScan.cards(html).count, 20)
      expectTrue(double.counters().calls(.search) <= 3, "a window and its next, not a walk from the top")
    }
  }
}
