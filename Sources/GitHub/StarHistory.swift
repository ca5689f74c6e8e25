/// Stars created during one week.
public struct StarWeek: Sendable, Hashable {
  /// The ISO date (`YYYY-MM-DD`, UTC) of the week start.
  public var week: String
  /// The week start as Unix seconds, as GitHub sends it.
  public var weekStart: Int
  /// Stars created during the week.
  public var total: Int
  /// Stars per day, Sunday first (seven entries).
  public var days: [Int]

  /// A week from GitHub's Unix timestamp; `week` is derived from it.
  public init(weekStart: Int, total: Int, days: [Int]) {
    self.week = StarWeek.isoDate(unixSeconds: weekStart)
    self.weekStart = weekStart
    self.total = total
    self.days = days
  }

  /// A week from an ISO date string (`weekStart` is informational only here).
  public init(week: String, total: Int, days: [Int], weekStart: Int = 0) {
    self.week = week
    self.weekStart = weekStart
    self.total = total
    self.days = days
  }

  /// `YYYY-MM-DD` in UTC for Unix seconds, by civil-calendar arithmetic (no formatter needed).
  static func isoDate(unixSeconds: Int) -> String {
    // Floor division written so that no value, Int.min included, can overflow (the input is upstream JSON).
    let days = unixSeconds >= 0 ? unixSeconds / 86400 : (unixSeconds + 1) / 86400 - 1
    // Days since 1970-01-01 to a proleptic Gregorian date (era-based algorithm).
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
  }

  private static func pad(_ value: Int, _ width: Int) -> String {
    let s = String(value)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
  }
}

/// A repository's weekly star history, newest week first.
public struct StarHistory: Sendable {
  /// The weeks, newest first.
  public var weeks: [StarWeek]
  /// True when served from an expired cache entry because GitHub failed.
  public var isStale: Bool

  /// A history from its parts.
  public init(weeks: [StarWeek], isStale: Bool = false) {
    self.weeks = weeks
    self.isStale = isStale
  }
}
