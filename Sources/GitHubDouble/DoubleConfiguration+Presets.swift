extension DoubleConfiguration {
  /// A double for exact checks: rate limits out of reach, every item in today's shape and no short
  /// pages, so list walks, golden files and counts come out the same on every run.
  ///
  /// ```swift
  /// var c = DoubleConfiguration.exact
  /// c.repositoryCount = 1500
  /// let double = GitHubDouble(configuration: c, time: .system)
  /// ```
  public static var exact: DoubleConfiguration {
    var c = DoubleConfiguration()
    c.searchLimitPerMinute = 1_000_000
    c.coreLimitPerHour = 1_000_000
    c.legacyItemRate = 0
    c.shortPageRate = 0
    return c
  }
}
