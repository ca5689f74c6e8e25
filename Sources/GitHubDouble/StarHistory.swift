#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One weekly bucket of `/stargazers/history`.
public struct StarHistoryWeek: Sendable, Equatable {
  /// Unix time of the Sunday 00:00 UTC that starts the week.
  public let week: Int
  /// Stars created during the week (or the running total, in cumulative mode).
  public let total: Int
  /// New stars per day, Sunday first.
  public let days: [Int]
}

/// A repository's star history, derived statelessly from its id, star count and creation time so that
/// the weekly new stars always add up to `stargazers_count` and any page can be computed on its own.
///
/// Stars accrue over the repository's whole life: a steady pace that grows or fades with age, plus one
/// to three launches (a release, a mention on a news site) that jump and then decay over a few weeks.
/// No single week holds more than `maxWeekShare` of the total once the repository is older than a few
/// weeks, nor more than `maxWeekStars`, so a card's "this week" reads like a real repository's.
struct StarHistory {
  static let weekSeconds = 7 * 86400
  /// The largest share of all stars one week may hold (young repositories: 2 / weeks, if larger).
  static let maxWeekShare = 0.04
  /// The most stars one week may gain: about the best weeks of the fastest-growing repositories.
  static let maxWeekStars = 12_000
  let repoID: Int
  let stars: Int
  let createdAt: Int
  let referenceTime: Int
  let firstWeek: Int
  /// Number of weeks from the creation week to the reference week, inclusive.
  let weekCount: Int
  /// Running share of the stars at the end of each week; the last is 1.
  private let shares: [Double]

  init(repo: CatalogRepository, referenceTime: Int) {
    repoID = repo.id
    stars = repo.stars
    createdAt = min(repo.createdAt, referenceTime)
    self.referenceTime = referenceTime
    firstWeek = ISODate.weekStart(createdAt)
    weekCount = (ISODate.weekStart(referenceTime) - firstWeek) / StarHistory.weekSeconds + 1
    shares = Self.shares(repoID: repo.id, stars: repo.stars, weeks: weekCount)
  }

  /// The weekly weights (steady pace plus decaying launches), capped, as running shares.
  private static func shares(repoID: Int, stars: Int, weeks: Int) -> [Double] {
    var rng = SplitMix64(seed: SplitMix64.hash(UInt64(repoID), 0x5747))
    // Growing (exponent > 0) or fading (< 0) steady interest.
    let exponent = -0.6 + 1.8 * rng.unit()
    var weights = (0..<weeks).map { pow(Double($0) + 1, exponent) }
    let steady = weights.reduce(0, +)
    // Launches: each brings 10–60% of the steady stars again, decaying over 1–6 weeks.
    let launches = 1 + rng.below(3)
    for index in 0..<launches {
      // The first launch is near creation, as most repositories are announced when they appear.
      let at = index == 0 ? rng.below(max(1, min(weeks, 4))) : rng.below(weeks)
      let decay = 1 + 5 * rng.unit()
      let height = steady * (0.1 + 0.5 * rng.unit()) / decay
      var k = at
      while k < weeks {
        let add = height * exp(-Double(k - at) / decay)
        if add < height * 0.001 { break }
        weights[k] += add
        k += 1
      }
    }
    cap(
      &weights, share: max(maxWeekShare, 2 / Double(weeks)),
      most: Double(maxWeekStars) / Double(max(stars, 1)))
    let total = weights.reduce(0, +)
    var running = 0.0
    return weights.map {
      running += $0
      return total > 0 ? min(1, running / total) : 1
    }
  }

  /// Lowers the largest weeks to one ceiling so that none holds more than `share` of the new total, nor
  /// more than `most` of it (the absolute cap as a share), but never below an even split (1 / weeks).
  private static func cap(_ weights: inout [Double], share: Double, most: Double) {
    let limit = max(1 / Double(max(weights.count, 1)), min(share, most))
    guard limit < 1 else { return }
    // With the n largest capped at c, c = limit * (the others' sum + n * c), so
    // c = limit * others / (1 - limit * n): the first n whose next weight is under that c is the answer.
    var others = weights.reduce(0, +)
    for (n, weight) in weights.sorted(by: >).enumerated() {
      let ceiling = limit * others / (1 - limit * Double(n))
      if weight <= ceiling {
        for k in weights.indices where weights[k] > ceiling { weights[k] = ceiling }
        return
      }
      others -= weight
    }
    weights = weights.map { _ in 1 }
  }

  /// The youngest a repository with `stars` stars can plausibly be (1,500 stars a week on average over
  /// its life, against about 1,000 for GitHub's largest): the catalog makes bigger ones older.
  static func minimumLife(stars: Int) -> Int { max(0, stars) / 1500 * weekSeconds }

  /// Stars at the end of week `k` (0 = creation week).
  func cumulative(_ k: Int) -> Int {
    if k < 0 { return 0 }
    if k >= weekCount - 1 { return stars }
    let v = Int((Double(stars) * shares[k]).rounded(.down))
    return min(max(v, 0), stars)
  }

  /// Week `k` (0 = creation week) with its daily split.
  func week(_ k: Int, cumulativeTotals: Bool) -> StarHistoryWeek {
    let start = firstWeek + k * StarHistory.weekSeconds
    let n = cumulative(k) - cumulative(k - 1)
    var weights = [Int](repeating: 0, count: 7)
    var sum = 0
    for d in 0..<7 {
      let dayStart = start + d * 86400
      // Only days on or after creation and not after the reference day can hold stars.
      if dayStart + 86400 > createdAt && dayStart <= referenceTime {
        weights[d] = 1 + Int(SplitMix64.hash(UInt64(repoID), UInt64(k), UInt64(d)) % 1000)
        sum += weights[d]
      }
    }
    var days = [Int](repeating: 0, count: 7)
    if n > 0 && sum > 0 {
      var given = 0
      for d in 0..<7 {
        days[d] = n * weights[d] / sum
        given += days[d]
      }
      var d = Int(SplitMix64.hash(UInt64(repoID), UInt64(k)) % 7)
      while given < n {
        if weights[d] > 0 {
          days[d] += 1
          given += 1
        }
        d = (d + 1) % 7
      }
    }
    return StarHistoryWeek(week: start, total: cumulativeTotals ? cumulative(k) : n, days: days)
  }

  /// One page, newest first.
  func page(_ page: Int, perPage: Int, cumulativeTotals: Bool) -> [StarHistoryWeek] {
    let first = (page - 1) * perPage
    guard first < weekCount else { return [] }
    let last = min(weekCount, first + perPage)
    return (first..<last).map { week(weekCount - 1 - $0, cumulativeTotals: cumulativeTotals) }
  }

  /// The number of pages at `perPage`.
  func pageCount(perPage: Int) -> Int { max(1, (weekCount + perPage - 1) / perPage) }
}
