import Redis
import SharedStore
import Synchronization

/// Sessions in Redis, so that a reader who signed in through one instance is signed in on all, and
/// sessions outlive instance restarts (and Redis restarts, with Redis persistence on). Keys are
/// `<namespace>session:<keyed hash of the id>` with the session's remaining lifetime as TTL.
///
/// It talks to Redis directly rather than through `SharedStore`: that store answers "nothing shared"
/// when Redis cannot answer, which is right for a cache (a miss costs an upstream call) but would
/// sign readers out during an outage; and it has no delete. Availability is tracked the same way
/// (`StoreHealth`): while Redis is down, only one probe per interval waits on a timeout.
public final class RedisSessionStore: SessionStore {
  private let client: RedisClient
  private let namespace: String
  private let health: Mutex<StoreHealth>
  private let clock: @Sendable () -> Double
  private let log: @Sendable (String) -> Void

  /// A store over a new client for `configuration` (it connects on first use and reconnects by
  /// itself). `log` gets one line per change of availability.
  public init(
    configuration: RedisConfiguration, namespace: String = "reposcroll:v1:", retryInterval: Double = 0.5,
    clock: @escaping @Sendable () -> Double, log: @escaping @Sendable (String) -> Void
  ) throws(RedisError) {
    client = try RedisClient(configuration)
    self.namespace = namespace
    self.clock = clock
    self.log = log
    health = Mutex(StoreHealth(available: true, now: clock(), retryInterval: retryInterval))
  }

  /// Closes the connections.
  public func shutdown() { client.shutdown() }

  /// The Redis key of a session's store name.
  public func redisKey(_ name: String) -> String { namespace + "session:" + name }

  /// The sealed record named `name`, or nil.
  public func load(_ name: String) async throws(SessionStoreError) -> [UInt8]? {
    let key = redisKey(name)
    return try await run { client throws(RedisError) in try await client.get(key) }
  }

  /// Stores `sealed` under `name` for `seconds`.
  public func save(_ sealed: [UInt8], as name: String, keepFor seconds: Int) async throws(SessionStoreError) {
    let key = redisKey(name)
    let ttl = Duration.seconds(max(1, min(seconds, 366 * 86_400)))
    try await run { client throws(RedisError) in try await client.set(key, sealed, expiresIn: ttl) }
  }

  /// Removes `name`.
  public func delete(_ name: String) async throws(SessionStoreError) {
    let key = redisKey(name)
    try await run { client throws(RedisError) in _ = try await client.delete([key]) }
  }

  /// Runs `body` unless Redis is known down (between probes), tracking availability.
  private func run<T: Sendable>(_ body: (RedisClient) async throws(RedisError) -> T)
    async throws(SessionStoreError) -> T
  {
    guard health.withLock({ $0.shouldAttempt(now: clock()) }) else {
      throw .unavailable(health.withLock { $0.lastError } ?? "redis unavailable")
    }
    do {
      let result = try await body(client)
      report(health.withLock { $0.succeeded(now: clock()) })
      return result
    } catch {
      if case .server = error {
        // Redis answered (a foreign value under our key, say): it is up; the session is unusable.
        report(health.withLock { $0.answeredWithError(now: clock()) })
      } else if error != .cancelled {
        report(health.withLock { $0.failed(error.description, now: clock()) })
      }
      throw .unavailable(error.description)
    }
  }

  private func report(_ change: StoreHealth.Change?) {
    guard let change else { return }
    log(change.logLine("redis: sessions", meanwhile: "signed-in readers continue anonymously"))
  }
}
