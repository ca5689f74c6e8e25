import Redis
import TestSupport

extension RedisConfiguration {
  /// A configuration for `server` (plain or TLS) whose connect, command and pool timeouts are long
  /// enough for a loaded test machine; tests that check a timeout shorten the one they check.
  static func relaxed(_ server: RedisServerProcess, database: Int = 0) throws -> RedisConfiguration {
    try server.configuration(database: database).relaxed()
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
