import Clocks
import Redis
import SharedStore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension RepoScrollApp {
  /// The Redis store named by `configuration.redisURL`, or nil when none is configured. A malformed
  /// URL or a refused password stops startup with a message that names `--redis` (never the
  /// password); an unreachable server does not: the instance starts on its local state and the
  /// store keeps probing. `log` gets one line per availability change.
  public static func connectSharedStore(
    _ configuration: AppConfiguration, time: TimeSource = .system, log: @escaping @Sendable (String) -> Void
  ) async throws(StartupError) -> RedisStore? {
    guard let url = configuration.redisURL else { return nil }
    var redis: RedisConfiguration
    do {
      redis = try RedisConfiguration(url: url)
    } catch {
      throw StartupError(description: "--redis: \(error)")
    }
    redis.commandTimeout = .milliseconds(configuration.redisTimeoutMS)
    redis.connectTimeout = .milliseconds(max(200, configuration.redisTimeoutMS))
    redis.poolTimeout = .milliseconds(configuration.redisTimeoutMS)
    do {
      return try await RedisStore.connect(redis, now: { time.wallSeconds() }, log: log)
    } catch {
      throw StartupError(description: "--redis \(redis): \(error)")
    }
  }
}
