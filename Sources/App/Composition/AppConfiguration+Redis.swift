import CommandLineOptions
import Redis

/// Redis beyond its URL: TLS files, Sentinel, passwords from the environment or files, and how
/// session writes wait for a replica. `--redis` (or `REDIS_URL`) still names the server, or with
/// sentinels the master's name: `--redis rediss://reposcroll/0 --redis-sentinels a:26379,b:26379`.
public struct RedisSettings: Sendable {
  /// PEM CAs trusted for the server's certificate with `rediss://`; nil trusts the system store.
  public var caFile: String?
  /// Client certificate for mutual TLS (with `keyFile`).
  public var certificateFile: String?
  /// The client certificate's private key.
  public var keyFile: String?
  /// The data servers' password, from `--redis-password-file`, `REDIS_PASSWORD` or the credential
  /// `redis-password` (it overrides one in `REDIS_URL`). Never logged.
  public var password: String?
  /// `--redis-password-file`, read when parsing ends.
  public var passwordFile: String?
  /// `host:port,host:port` of the sentinels; nil connects to the URL's host.
  public var sentinels: String?
  /// The name the sentinels know the master by; nil uses the URL's host.
  public var masterName: String?
  /// The sentinels' ACL user; nil uses their default user.
  public var sentinelUsername: String?
  /// The sentinels' password (their `requirepass`). Never logged.
  public var sentinelPassword: String?
  /// `--redis-sentinel-password-file`, read when parsing ends.
  public var sentinelPasswordFile: String?
  /// Milliseconds a session write waits for one replica (`WAIT 1 MS`); 0 never waits; nil is the
  /// default: 100 with sentinels (which imply a replica), 0 without.
  public var sessionWaitMS: Int?

  /// Nothing set.
  public init() {}
}

extension AppConfiguration {
  /// The flags for `RedisSettings`, listed after `--redis-timeout`.
  static let redisOptions: [Option<AppConfiguration>] = [
    .text(
      "--redis-ca-file", env: "REDIS_CA_FILE", value: "PATH",
      help: "PEM CAs trusted for rediss:// (system store)", \.redis.caFile),
    .text(
      "--redis-cert-file", env: "REDIS_CERT_FILE", value: "PATH",
      help: "client certificate for Redis mutual TLS, with --redis-key-file (none)", \.redis.certificateFile),
    .text(
      "--redis-key-file", env: "REDIS_KEY_FILE", value: "PATH", help: "the client certificate's key (none)",
      \.redis.keyFile),
    .text(
      "--redis-password-file", env: "REDIS_PASSWORD_FILE", value: "PATH",
      help: "file holding the Redis password (else $REDIS_PASSWORD, credential redis-password, REDIS_URL's)",
      \.redis.passwordFile),
    Option(
      "--redis-sentinels", env: "REDIS_SENTINELS", value: "HOST:PORT,...",
      help: "find the master through these Redis sentinels (off)"
    ) {
      do {
        _ = try RedisSentinelConfiguration(sentinels: $1, masterName: "check")
      } catch {
        throw OptionError("\(error)")
      }
      $0.redis.sentinels = $1
    },
    .text(
      "--redis-master-name", env: "REDIS_MASTER_NAME", value: "NAME",
      help: "the sentinels' name of the master (the --redis URL's host)", \.redis.masterName),
    .text(
      "--redis-sentinel-user", env: "REDIS_SENTINEL_USER", value: "NAME",
      help: "ACL user on the sentinels (their default user)", \.redis.sentinelUsername),
    .text(
      "--redis-sentinel-password-file", env: "REDIS_SENTINEL_PASSWORD_FILE", value: "PATH",
      help: "file holding the sentinels' password (else $REDIS_SENTINEL_PASSWORD)",
      \.redis.sentinelPasswordFile),
    Option(
      "--redis-session-wait", env: "REDIS_SESSION_WAIT_MS", value: "MS",
      help: "a session write waits up to MS for a replica (WAIT 1 MS); 0 is off (100 with sentinels, else 0)"
    ) { $0.redis.sessionWaitMS = try OptionValue.int($1, in: 0...5000) },
  ]

  /// Reads the Redis passwords (never from a flag value: a file named by a flag, the environment,
  /// or a systemd credential), refuses a password inside a `--redis` flag value (it would show in
  /// `ps`), and names the master from `--redis-master-name` when only sentinels were given.
  mutating func settleRedis(arguments: [String], environment: [String: String]) throws(OptionError) {
    let flagged = arguments.contains { $0 == "--redis" || $0.hasPrefix("--redis=") }
    if flagged, let url = redisURL, (try? RedisConfiguration(url: url))?.password != nil {
      throw OptionError(
        "--redis: the URL holds a password, which a flag value shows to every user of the host (ps); "
          + "put it in REDIS_PASSWORD, --redis-password-file or the REDIS_URL variable")
    }
    redis.password = try Self.secret(
      file: redis.passwordFile, flag: "--redis-password-file", variable: "REDIS_PASSWORD",
      credential: "redis-password", environment: environment)
    redis.sentinelPassword = try Self.secret(
      file: redis.sentinelPasswordFile, flag: "--redis-sentinel-password-file",
      variable: "REDIS_SENTINEL_PASSWORD", credential: "redis-sentinel-password", environment: environment)
    if redis.sentinels != nil && redisURL == nil {
      guard let name = redis.masterName else {
        throw OptionError(
          "--redis-sentinels needs --redis-master-name (or a --redis URL whose host is the name)")
      }
      redisURL = "redis://\(name)/0"
    }
  }

  /// A secret from `file`, else the variable, else the systemd credential; nil when none is set.
  private static func secret(
    file: String?, flag: String, variable: String, credential: String, environment: [String: String]
  ) throws(OptionError) -> String? {
    if let file {
      do {
        return try SecretSource.read(file: file)
      } catch {
        throw OptionError("\(flag): \(error.description)")
      }
    }
    if let value = environment[variable], !value.isEmpty { return value }
    return try SecretSource.credential(credential, environment: environment)
  }
}
