import Clocks
import Redis
import RedisSharedStore
import SharedStore
import TLS

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension RepoScrollApp {
  /// The Redis store named by `configuration.redisURL`, or nil when none is configured. A malformed
  /// URL, an unusable TLS file or a refused password stops startup with a message that names the
  /// flag (never the password); an unreachable server, a refused certificate or sentinels that
  /// name no master do not: the instance starts on its local state and the store keeps probing.
  /// `log` gets one line per availability change.
  public static func connectSharedStore(
    _ configuration: AppConfiguration, time: TimeSource, log: @escaping @Sendable (String) -> Void
  ) async throws(StartupError) -> RedisStore? {
    guard let redis = try redisConfiguration(configuration) else { return nil }
    do {
      return try await RedisStore.connect(redis, time: time, log: log)
    } catch {
      throw StartupError(description: "--redis \(redis): \(error)")
    }
  }

  /// The client settings for `--redis` and the flags beside it, or nil without `--redis`: the
  /// password from its file or variable, TLS files (only with `rediss://`), sentinels, and the
  /// timeouts (`--redis-timeout` for commands and the pool; connecting gets at least 200 ms, and
  /// 500 ms with TLS, whose handshake costs two more round trips).
  public static func redisConfiguration(_ configuration: AppConfiguration) throws(StartupError)
    -> RedisConfiguration?
  {
    guard let url = configuration.redisURL else { return nil }
    let settings = configuration.redis
    var redis: RedisConfiguration
    do {
      redis = try RedisConfiguration(url: url)
    } catch {
      throw StartupError(description: "--redis: \(error)")
    }
    if let password = settings.password { redis.password = password }
    if settings.caFile != nil || settings.certificateFile != nil || settings.keyFile != nil {
      guard redis.tls != nil else {
        throw StartupError(
          description:
            "--redis-ca-file, --redis-cert-file and --redis-key-file need a rediss:// URL in --redis")
      }
      redis.tls?.caFile = settings.caFile
      redis.tls?.certificateFile = settings.certificateFile
      redis.tls?.keyFile = settings.keyFile
    }
    let timeout = configuration.redisTimeoutMS
    if let list = settings.sentinels {
      do {
        var sentinel = try RedisSentinelConfiguration(
          sentinels: list, masterName: settings.masterName ?? redis.host)
        sentinel.username = settings.sentinelUsername
        sentinel.password = settings.sentinelPassword
        // The spec's "few hundred milliseconds" to reach a sentinel and hear its answer.
        sentinel.timeout = .milliseconds(max(300, timeout))
        redis.sentinel = sentinel
      } catch {
        throw StartupError(description: "--redis-sentinels: \(error)")
      }
    }
    redis.commandTimeout = .milliseconds(timeout)
    redis.connectTimeout = .milliseconds(max(redis.tls == nil ? 200 : 500, timeout))
    redis.poolTimeout = .milliseconds(timeout)
    return redis
  }

  /// How long a session write waits for a replica: `--redis-session-wait`, by default 100 ms with
  /// sentinels and none without; nil when it does not wait.
  static func sessionReplicaWait(_ configuration: AppConfiguration) -> Duration? {
    let milliseconds = configuration.redis.sessionWaitMS ?? (configuration.redis.sentinels == nil ? 0 : 100)
    return milliseconds > 0 ? .milliseconds(milliseconds) : nil
  }
}
