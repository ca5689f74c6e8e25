import Clocks
import Redis
import SharedStore
import Synchronization

/// The shared store on Redis. Keys live under a versioned namespace (`reposcroll:v1:` by default):
/// `cache:<key>` values, `lock:<key>` locks (`SET NX PX`), `ledger:<resource>` hashes updated by Lua.
///
/// When Redis is down, slow (each command has a short timeout) or refusing, commands fail, the
/// store becomes unavailable and answers "nothing shared" without sending anything, except one probe
/// per retry interval; the first probe that succeeds makes it available again. Each change is one
/// log line. The client reconnects by itself.
public final class RedisStore: SharedStore {
  /// How long ledger hashes are kept after their last update.
  static let ledgerKeepSeconds = 86_400

  private let client: RedisClient
  private let namespace: String
  private let health: Mutex<StoreHealth>
  private let now: @Sendable () -> Double
  private let log: @Sendable (String) -> Void

  /// A store over a new client for `configuration`. A refused password, or a server that demands
  /// one, throws `.authFailed` so startup can stop with a clear message; an unreachable server only
  /// starts the store unavailable (it keeps probing). `time` is where "now" comes from.
  public static func connect(
    _ configuration: RedisConfiguration, namespace: String = "reposcroll:v1:", retryInterval: Double = 0.5,
    time: TimeSource, log: @escaping @Sendable (String) -> Void
  ) async throws(RedisError) -> RedisStore {
    let now: @Sendable () -> Double = { time.wallSeconds() }
    let client = try RedisClient(configuration, time: time)
    var reachable = true
    do {
      try await client.ping()
    } catch {
      if case .authFailed = error {
        client.shutdown()
        throw error
      }
      reachable = false
      log("redis: unavailable at startup (\(error)); serving from the local cache and ledger")
    }
    return RedisStore(
      client: client, namespace: namespace,
      health: StoreHealth(available: reachable, now: now(), retryInterval: retryInterval), now: now, log: log)
  }

  private init(
    client: RedisClient, namespace: String, health: StoreHealth, now: @escaping @Sendable () -> Double,
    log: @escaping @Sendable (String) -> Void
  ) {
    self.client = client
    self.namespace = namespace
    self.health = Mutex(health)
    self.now = now
    self.log = log
  }

  /// Closes the connections.
  public func shutdown() { client.shutdown() }

  /// The value under `key` from Redis, or nil when absent or Redis is unreachable.
  public func value(for key: String) async -> [UInt8]? {
    let name = namespace + "cache:" + key
    return await run { client throws(RedisError) in try await client.get(name) } ?? nil
  }

  /// Stores `bytes` under `key` with a TTL of `seconds`; a Redis failure is counted, not thrown.
  public func setValue(_ bytes: [UInt8], for key: String, keepFor seconds: Double) async {
    let name = namespace + "cache:" + key
    _ = await run { client throws(RedisError) in
      try await client.set(name, bytes, expiresIn: Self.duration(seconds))
    }
  }

  /// `SET NX PX` on the lock key; `.unshared` when Redis cannot be reached.
  public func lock(_ key: String, for seconds: Double) async -> LockOutcome {
    let name = namespace + "lock:" + key
    let owner = String(UInt64.random(in: 1...UInt64.max), radix: 36)
    let taken = await run { client throws(RedisError) in
      try await client.setIfAbsent(name, Array(owner.utf8), expiresIn: Self.duration(seconds))
    }
    switch taken {
    case .some(true): return .acquired(LockToken(key: key, owner: owner))
    case .some(false): return .heldElsewhere
    case .none: return .unshared
    }
  }

  /// Deletes the lock key only if `token` still owns it (compare-and-delete script).
  public func unlock(_ token: LockToken) async {
    let name = namespace + "lock:" + token.key
    _ = await run { client throws(RedisError) in
      try await client.evaluate(LedgerScripts.unlock, keys: [name], arguments: [RedisArgument(token.owner)])
    }
  }

  /// Spends one call from the shared ledger atomically, or says why not.
  public func reserve(_ resource: String, now time: Double) async -> LedgerRefusal? {
    let name = ledgerKey(resource)
    let seconds = Int(time.rounded(.down))
    guard
      let reply = await run({ client throws(RedisError) in
        try await client.evaluate(LedgerScripts.reserve, keys: [name], arguments: [RedisArgument(seconds)])
      }), let parts = reply.array, let verdict = parts.first?.integer, verdict != 0,
      let until = parts.dropFirst().first?.integer
    else { return nil }
    return LedgerRefusal(until: Int(clamping: until), secondary: verdict == 2)
  }

  /// Returns a reserved call that was never made.
  public func refund(_ resource: String) async {
    let name = ledgerKey(resource)
    _ = await run { client throws(RedisError) in try await client.evaluate(LedgerScripts.refund, keys: [name])
    }
  }

  /// Records the budget GitHub reported, shared with every instance.
  public func record(_ resource: String, limit: Int, remaining: Int, reset: Int) async {
    let name = ledgerKey(resource)
    let arguments = [limit, remaining, reset, Self.ledgerKeepSeconds].map { RedisArgument($0) }
    _ = await run { client throws(RedisError) in
      try await client.evaluate(LedgerScripts.record, keys: [name], arguments: arguments)
    }
  }

  /// Refuses the resource's calls on every instance until `until`.
  public func block(_ resource: String, until: Int, secondary: Bool) async {
    let name = ledgerKey(resource)
    let arguments = [
      RedisArgument(until), RedisArgument(secondary ? 1 : 0), RedisArgument(Self.ledgerKeepSeconds),
    ]
    _ = await run { client throws(RedisError) in
      try await client.evaluate(LedgerScripts.block, keys: [name], arguments: arguments)
    }
  }

  /// The Redis backend's health: availability, transitions and the last error.
  public func status() async -> SharedStoreStatus {
    // A health check is also a probe, so an idle instance notices recovery too.
    if !health.withLock({ $0.available }) {
      _ = await run { client throws(RedisError) in try await client.ping() }
    }
    return health.withLock {
      SharedStoreStatus(
        backend: "redis", available: $0.available, since: $0.since, transitions: $0.transitions,
        failures: $0.failures, errorReplies: $0.errorReplies, lastError: $0.lastError,
        telemetry: client.telemetry.snapshot)
    }
  }

  private func ledgerKey(_ resource: String) -> String { namespace + "ledger:" + resource }

  /// Runs `body` if the store is in use, tracking availability; nil when skipped or failed. An
  /// error reply means Redis answered (a foreign value of the wrong type, say): a miss, not an outage.
  private func run<T: Sendable>(_ body: (RedisClient) async throws(RedisError) -> T) async -> T? {
    guard health.withLock({ $0.shouldAttempt(now: now()) }) else { return nil }
    do {
      let result = try await body(client)
      report(health.withLock { $0.succeeded(now: now()) })
      return result
    } catch {
      switch error {
      case .cancelled:
        break
      case .server:
        report(health.withLock { $0.answeredWithError(now: now()) })
      default:
        report(health.withLock { $0.failed(error.description, now: now()) })
      }
      return nil
    }
  }

  private func report(_ change: StoreHealth.Change?) {
    guard let change else { return }
    log(
      change.logLine(
        "redis:", meanwhile: "serving from the local cache and ledger", resumed: "sharing resumed"))
  }

  private static func duration(_ seconds: Double) -> Duration {
    guard seconds.isFinite, seconds > 0 else { return .milliseconds(1) }
    return .milliseconds(Int64(min(seconds, 31_536_000) * 1000))
  }
}
