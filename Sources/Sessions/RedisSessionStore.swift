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
///
/// Replication is asynchronous, so a write the master acknowledged can be lost in a failover. With
/// `replicaWait`, each write and delete is followed by `WAIT 1 <ms>`: the reader's sign-in (or
/// sign-out) completes once one replica has it, so it survives the master's loss. When no replica
/// answers in time the write still counts (sign-in stays available with a replica down) and one
/// line says so until a replica acknowledges again.
public final class RedisSessionStore: SessionStore {
  private let client: RedisClient
  private let namespace: String
  private let health: Mutex<StoreHealth>
  private let clock: @Sendable () -> Double
  private let log: @Sendable (String) -> Void
  private let replicaWait: Duration?
  /// True after a write no replica acknowledged, until one is acknowledged again.
  private let unreplicated = Mutex(false)

  /// A store over a new client for `configuration` (it connects on first use and reconnects by
  /// itself). `log` gets one line per change of availability.
  public init(
    configuration: RedisConfiguration, namespace: String = "reposcroll:v1:", retryInterval: Double = 0.5,
    replicaWait: Duration? = nil, clock: @escaping @Sendable () -> Double,
    log: @escaping @Sendable (String) -> Void
  ) throws(RedisError) {
    client = try RedisClient(configuration)
    self.namespace = namespace
    self.clock = clock
    self.log = log
    self.replicaWait = replicaWait
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

  /// Stores `sealed` under `name` for `seconds` (and waits for a replica, when configured to).
  public func save(_ sealed: [UInt8], as name: String, keepFor seconds: Int) async throws(SessionStoreError) {
    let ttl = max(1, min(seconds, 366 * 86_400)) * 1000
    try await write(
      RedisCommand("SET", RedisArgument(redisKey(name)), .bytes(sealed), "PX", RedisArgument(ttl)))
  }

  /// Removes `name` (and waits for a replica, so a failover cannot bring a signed-out session back).
  public func delete(_ name: String) async throws(SessionStoreError) {
    try await write(RedisCommand("DEL", RedisArgument(redisKey(name))))
  }

  /// Runs `command`, then `WAIT 1 <ms>` in the same pipeline when `replicaWait` is set.
  private func write(_ command: RedisCommand) async throws(SessionStoreError) {
    guard let wait = replicaWait else {
      try await run { client throws(RedisError) in _ = try await client.execute(command) }
      return
    }
    let milliseconds = max(1, Int((wait / .milliseconds(1)).rounded(.up)))
    let replies = try await run { client throws(RedisError) in
      try await client.pipeline(
        [command, RedisCommand("WAIT", 1, RedisArgument(milliseconds))],
        timeout: client.configuration.commandTimeout + wait)
    }
    if let message = replies.first?.errorMessage { throw .unavailable("redis error reply: \(message)") }
    noteReplication(acknowledged: (replies.last?.integer ?? 0) >= 1, within: milliseconds)
  }

  /// One log line when writes stop being acknowledged by a replica, one when they are again.
  private func noteReplication(acknowledged: Bool, within milliseconds: Int) {
    let changed = unreplicated.withLock { flag -> Bool in
      defer { flag = !acknowledged }
      return flag == acknowledged
    }
    guard changed else { return }
    log(
      acknowledged
        ? "redis: sessions: a replica acknowledges session writes again"
        : "redis: sessions: no replica acknowledged a session write within \(milliseconds) ms; "
          + "sessions written meanwhile may be lost if the master fails")
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
