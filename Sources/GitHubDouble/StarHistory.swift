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

/// A repository's star history, derived statelessly from its id and star count so that the weekly
/// new stars always add up to `stargazers_count` and any page can be computed on its own.
struct StarHistory {
  static let weekSeconds = 7 * 86400
  let repoID: Int
  let stars: Int
  let createdAt: Int
  let referenceTime: Int
  let firstWeek: Int
  /// Number of weeks from the creation week to the reference week, inclusive.
  let weekCount: Int
  private let exponent: Double
  private let burstCenter: Double
  private let burstWidth: Double
  private let burstWeight: Double

  init(repo: CatalogRepository, referenceTime: Int) {
    repoID = repo.id
    stars = repo.stars
    createdAt = min(repo.createdAt, referenceTime)
    self.referenceTime = referenceTime
    firstWeek = ISODate.weekStart(createdAt)
    weekCount = (ISODate.weekStart(referenceTime) - firstWeek) / StarHistory.weekSeconds + 1
    var rng = SplitMix64(seed: SplitMix64.hash(UInt64(repo.id), 0x5747))
    exponent = 0.5 + 2.5 * rng.unit()
    burstCenter = 0.15 + 0.8 * rng.unit()
    burstWidth = 0.01 + 0.08 * rng.unit()
    burstWeight = rng.chance(0.6) ? 0.7 * rng.unit() : 0
  }

  /// The growth curve: 0 at creation, 1 at the reference week, never decreasing.
  private func curve(_ x: Double) -> Double {
    let base = pow(x, exponent)
    guard burstWeight > 0 else { return base }
    func logistic(_ t: Double) -> Double { 1 / (1 + exp(-(t - burstCenter) / burstWidth)) }
    let lo = logistic(0)
    let hi = logistic(1)
    let burst = hi > lo ? (logistic(x) - lo) / (hi - lo) : x
    return (1 - burstWeight) * base + burstWeight * burst
  }

  /// Stars at the end of week `k` (0 = creation week).
  func cumulative(_ k: Int) -> Int {
    if k < 0 { return 0 }
    if k >= weekCount - 1 { return stars }
    let v = Int((Double(stars) * curve(Double(k + 1) / Double(weekCount))).rounded(.down))
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
