import Redis

extension RedisConfiguration {
  /// A configuration whose connect, command and pool timeouts are long enough for a loaded test machine;
  /// tests that check a timeout shorten the one they check.
  static func relaxed(url: String) throws -> RedisConfiguration {
    try RedisConfiguration(url: url).relaxed()
  }

  /// This configuration with the relaxed timeouts.
  func relaxed() -> RedisConfiguration {
    var configuration = self
    configuration.connectTimeout = .seconds(5)
    configuration.commandTimeout = .seconds(10)
    configuration.poolTimeout = .seconds(10)
    return configuration
  }

  /// This configuration with a pool of at most `size` connections.
  func pool(_ size: Int) -> RedisConfiguration {
    var configuration = self
    configuration.poolSize = size
    return configuration
  }
}
