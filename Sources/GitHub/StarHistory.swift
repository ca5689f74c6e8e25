import HTTP

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
    self.week = CivilDate.isoDate(unixSeconds: weekStart)
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
}

/// A repository's weekly star history, newest week first.
public struct StarHistory: Sendable {
  /// The weeks, newest first.
  public var weeks: [StarWeek]
  /// True when served from an expired cache entry because GitHub failed.
  public var isStale: Bool
  /// Malformed weeks left out of `weeks`.
  var skipped = Skipped()

  /// A history from its parts.
  public init(weeks: [StarWeek], isStale: Bool = false) {
    self.weeks = weeks
    self.isStale = isStale
  }
}
