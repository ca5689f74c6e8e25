import Clocks
import Redis
import SharedStore
import Synchronization

/// Sessions in Redis, so that a reader who signed in through one instance is signed in on all, and
/// sessions outlive instance restarts (and Redis restarts, with Redis persistence on). Keys:
/// - `<namespace>session:<name>`: the sealed record, with the session's remaining lifetime as TTL;
/// - `<namespace>session-account:<account>`: a sorted set of that account's session names by sign-in
///   time (the account is a keyed hash of the user id, never a login);
/// - `<namespace>sessions`: every session name by expiry (ms), for the store's cap;
/// - `<namespace>session-renew:<name>`: a session's renewal lock (`SET NX PX`, released by script),
///   whose release is published on `<namespace>session-renewed:<name>`.
/// Creation, compare-and-set and deletion are Lua scripts, each atomic. They touch keys they compute
/// (an account's evicted sessions), so they suit one Redis (with Sentinel), not Redis Cluster.
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
  private let time: TimeSource
  private let log: @Sendable (String) -> Void
  private let signals = RenewalSignals()
  private let listener = Mutex(Listener.idle)

  /// The pub/sub subscription that hears renewals end on every instance.
  private enum Listener {
    case idle
    case starting(Task<Void, Never>)
    case live(RedisSubscription)
  }
  private let replicaWait: Duration?
  /// True after a write no replica acknowledged, until one is acknowledged again.
  private let unreplicated = Mutex(false)

  /// A store over a new client for `configuration` (it connects on first use and reconnects by
  /// itself). `log` gets one line per change of availability; `time` is where "now" comes from.
  public init(
    configuration: RedisConfiguration, namespace: String = "reposcroll:v1:", retryInterval: Double = 0.5,
    replicaWait: Duration? = nil, time: TimeSource,
    log: @escaping @Sendable (String) -> Void
  ) throws(RedisError) {
    client = try RedisClient(configuration, time: time)
    self.namespace = namespace
    self.time = time
    self.log = log
    self.replicaWait = replicaWait
    health = Mutex(StoreHealth(available: true, now: time.wallSeconds(), retryInterval: retryInterval))
  }

  /// Closes the connections, the renewal subscription's included.
  public func shutdown() {
    if case .live(let subscription) = listener.withLock({ $0 }) { subscription.close() }
    client.shutdown()
  }

  /// The Redis key of a session's store name.
  public func redisKey(_ name: String) -> String { namespace + "session:" + name }

  /// The Redis key of an account's index of sessions.
  public func accountKey(_ account: String) -> String { namespace + "session-account:" + account }

  /// The Redis key of the index of every session.
  public var allSessionsKey: String { namespace + "sessions" }

  /// The sealed record named `name`, or nil.
  public func load(_ name: String) async throws(SessionStoreError) -> [UInt8]? {
    let key = redisKey(name)
    return try await run { client throws(RedisError) in try await client.get(key) }
  }

  /// A new session, within `limits` (see `SessionStore.create`), in one script.
  public func create(
    _ sealed: [UInt8], as name: String, account: String, keepFor seconds: Int, limits: SessionLimits
  ) async throws(SessionStoreError) {
    let (ttl, now, until) = times(seconds)
    let keys = [redisKey(name), accountKey(account), allSessionsKey]
    let arguments: [RedisArgument] = [
      .bytes(sealed), RedisArgument(ttl), RedisArgument(now), RedisArgument(until),
      RedisArgument(limits.perAccount), RedisArgument(limits.total), RedisArgument(name),
      RedisArgument(namespace + "session:"), RedisArgument(min(limits.indexLifetime, 366 * 86_400) * 1000),
    ]
    let reply = try await write(SessionScripts.create, keys: keys, arguments: arguments)
    if reply.integer == -1 { throw .full }
  }

  /// Writes `sealed` over `expected` only (see `SessionStore.replace`), in one script.
  public func replace(_ name: String, expected: [UInt8], with sealed: [UInt8], keepFor seconds: Int)
    async throws(SessionStoreError) -> Bool
  {
    let (ttl, _, until) = times(seconds)
    let keys = [redisKey(name), allSessionsKey]
    let arguments: [RedisArgument] = [
      .bytes(expected), .bytes(sealed), RedisArgument(ttl), RedisArgument(until), RedisArgument(name),
    ]
    let reply = try await write(SessionScripts.replace, keys: keys, arguments: arguments)
    return reply.integer == 1
  }

  /// Removes `name` (and its place in the index of every session); true when it was there.
  @discardableResult
  public func delete(_ name: String) async throws(SessionStoreError) -> Bool {
    let keys = [redisKey(name), allSessionsKey]
    let reply = try await write(SessionScripts.delete, keys: keys, arguments: [RedisArgument(name)])
    return reply.integer == 1
  }

  /// `SET NX PX` on the session's renewal lock; nil when another holder has it.
  public func lockRenewal(_ name: String, for seconds: Int) async throws(SessionStoreError) -> RenewalLock? {
    let owner = Self.owner()
    let key = namespace + "session-renew:" + name
    let taken = try await run { client throws(RedisError) in
      try await client.setIfAbsent(key, Array(owner.utf8), expiresIn: .seconds(max(1, seconds)))
    }
    return taken ? RenewalLock(name: name, owner: owner) : nil
  }

  /// Deletes the lock if `lock` still owns it and publishes the end of the renewal, in one script;
  /// a failure leaves the lock to lapse and the waiters to their timeout.
  public func unlockRenewal(_ lock: RenewalLock) async {
    let key = namespace + "session-renew:" + lock.name
    let channel = Self.channelPrefix(namespace) + lock.name
    _ = try? await run { client throws(RedisError) in
      try await client.evaluate(
        SessionScripts.unlock, keys: [key], arguments: [RedisArgument(lock.owner), RedisArgument(channel)])
    }
    // Waiters in this process hear it at once, whatever the subscription is doing.
    signals.fire(lock.name)
  }

  /// A waiter for the end of a renewal of `name` on any instance. The subscription that hears other
  /// instances is set up (once, on first use) before this returns; if it cannot be, the waiter
  /// still returns at its timeout.
  public func renewalWaiter(_ name: String) async -> RenewalWaiter {
    let waiter = signals.waiter(name)
    await listen()
    return waiter
  }

  // MARK: - Helpers

  /// TTL in ms, now in ms and the expiry in ms of a value kept `seconds`.
  private func times(_ seconds: Int) -> (ttl: Int, now: Int, until: Int) {
    let ttl = max(1, min(seconds, 366 * 86_400)) * 1000
    let now = time.epochMilliseconds()
    return (ttl, now, now.addingReportingOverflow(ttl).partialValue)
  }

  private static func channelPrefix(_ namespace: String) -> String { namespace + "session-renewed:" }

  /// 128 random bits, hex: a lock owner no other holder has.
  private static func owner() -> String {
    var random = SystemRandomNumberGenerator()
    return String(random.next(), radix: 16) + String(random.next(), radix: 16)
  }

  /// Starts the pattern subscription unless it runs, and waits until it does (or failed to).
  private func listen() async {
    let task = listener.withLock { state -> Task<Void, Never>? in
      switch state {
      case .live: return nil
      case .starting(let task): return task
      case .idle:
        let task = Task { await self.subscribe() }
        state = .starting(task)
        return task
      }
    }
    await task?.value
  }

  private func subscribe() async {
    let prefix = Self.channelPrefix(namespace)
    do {
      let subscription = try await client.subscribe(to: [])
      try await subscription.subscribe(patterns: [prefix + "*"])
      listener.withLock { $0 = .live(subscription) }
      Task { [signals] in
        for await message in subscription.messages where message.channel.hasPrefix(prefix) {
          signals.fire(String(message.channel.dropFirst(prefix.utf8.count)))
        }
        // Lost: the next waiter subscribes again (and re-reads the record before it waits).
        self.listener.withLock { $0 = .idle }
      }
    } catch {
      listener.withLock { $0 = .idle }
    }
  }

  /// Runs a writing `script`, then `WAIT 1 <ms>` in the same pipeline (so on the same connection,
  /// which is what `WAIT` counts) when `replicaWait` is set. With the wait the script goes as `EVAL`,
  /// since an `EVALSHA` that misses would need a second round trip outside the pipeline.
  private func write(_ script: RedisScript, keys: [String], arguments: [RedisArgument])
    async throws(SessionStoreError) -> RESPValue
  {
    guard let wait = replicaWait else {
      return try await run { client throws(RedisError) in
        try await client.evaluate(script, keys: keys, arguments: arguments)
      }
    }
    let milliseconds = max(1, Int((wait / .milliseconds(1)).rounded(.up)))
    let tail = [RedisArgument(keys.count)] + keys.map { RedisArgument($0) } + arguments
    let replies = try await run { client throws(RedisError) in
      try await client.pipeline(
        [
          RedisCommand(arguments: ["EVAL", RedisArgument(script.source)] + tail),
          RedisCommand("WAIT", 1, RedisArgument(milliseconds)),
        ],
        timeout: client.configuration.commandTimeout + wait)
    }
    guard let reply = replies.first else { throw .unavailable("redis: no reply to a session write") }
    if let message = reply.errorMessage { throw .unavailable("redis error reply: \(message)") }
    noteReplication(acknowledged: (replies.last?.integer ?? 0) >= 1, within: milliseconds)
    return reply
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
    guard health.withLock({ $0.shouldAttempt(now: time.wallSeconds()) }) else {
      throw .unavailable(health.withLock { $0.lastError } ?? "redis unavailable")
    }
    do {
      let result = try await body(client)
      report(health.withLock { $0.succeeded(now: time.wallSeconds()) })
      return result
    } catch {
      if case .server = error {
        // Redis answered (a foreign value under our key, say): it is up; the session is unusable.
        report(health.withLock { $0.answeredWithError(now: time.wallSeconds()) })
      } else if error != .cancelled {
        report(health.withLock { $0.failed(error.description, now: time.wallSeconds()) })
      }
      throw .unavailable(error.description)
    }
  }

  private func report(_ change: StoreHealth.Change?) {
    guard let change else { return }
    log(change.logLine("redis: sessions", meanwhile: "signed-in readers continue anonymously"))
  }
}
