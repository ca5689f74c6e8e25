import Clocks
import Sockets
import Synchronization
import TLS

/// A pooled Redis client: at most `poolSize` connections, opened on demand and reused; callers beyond
/// that wait up to `poolTimeout`. A connection that fails or times out is dropped and the next call
/// opens a new one, so the client reconnects by itself after the server goes away; after a failed
/// connect, calls fail fast with that error for `reconnectDelay` instead of piling up connect attempts.
///
/// Every call takes one connection for its duration, so a pipeline's commands run back to back on one
/// socket. All I/O runs on one epoll thread owned by the client; call `shutdown()` when done (it also
/// happens when the client is released).
///
/// With `tls` set, every connection is TLS, verified before its first command. With `sentinel`
/// set, connections go to the master the sentinels name (checked with `ROLE`); a failed connection
/// or a `READONLY` answer makes the next connection ask them again, a pipeline answered `READONLY`
/// is sent once more to the new master, and a change of master closes the pooled connections to
/// the old one. `telemetry` holds what the client has seen (role, failovers, handshakes).
public final class RedisClient: RedisCommandRunner {
  /// A waiter is handed a connection, or the right to open one in a freed slot.
  enum Grant: Sendable {
    case connection(RedisConnection)
    case open
  }

  /// How the pool is doing, for metrics.
  public struct Statistics: Sendable, Equatable {
    /// Connections open or being opened.
    public var open: Int
    /// Open connections not in use.
    public var idle: Int
    /// Calls waiting for a connection.
    public var waiting: Int

    /// Counts as given.
    public init(open: Int, idle: Int, waiting: Int) {
      self.open = open
      self.idle = idle
      self.waiting = waiting
    }
  }

  /// The settings the client was created with.
  public let configuration: RedisConfiguration
  /// The server's role, failovers followed and TLS handshakes, for metrics.
  public let telemetry = RedisTelemetry()
  private let io: RedisIOLoop
  private let pool: Pool
  private let tls: TLSClientContext?
  private let locator: SentinelLocator?
  /// Listens for `+switch-master` while the client runs (sentinels only).
  private let watcher: Task<Void, Never>?

  /// The pool state behind a lock, shared with the loop's tick that expires waiters.
  private final class Pool: Sendable {
    let state: Mutex<RedisPoolState<RedisConnection, ReplySlot<Grant>>>
    init(_ state: RedisPoolState<RedisConnection, ReplySlot<Grant>>) { self.state = Mutex(state) }

    func expire(now: Int) {
      let expired = state.withLock { $0.expire(now: now) }
      for waiter in expired { waiter.finish(.failure(.poolExhausted)) }
    }
  }

  /// Creates the client and its I/O thread, and loads the TLS files (`.tls` if one cannot be used).
  /// No connection to Redis is opened until the first call; with sentinels, listening for
  /// `+switch-master` starts at once.
  /// `time` is where deadlines and the pool's waits are read; the executables pass `.system`.
  public init(_ configuration: RedisConfiguration, time: TimeSource) throws(RedisError) {
    self.configuration = configuration
    let tls = try configuration.tls.map { (settings) throws(RedisError) in
      try RedisConnection.context(settings)
    }
    self.tls = tls
    let io: RedisIOLoop
    do {
      io = try RedisIOLoop(time: time)
    } catch {
      throw .connectionLost(error.description)
    }
    self.io = io
    let pool = Pool(
      RedisPoolState(
        size: configuration.poolSize, maxWaiters: configuration.maxWaiters,
        reconnectDelay: configuration.reconnectDelay.wholeMilliseconds))
    self.pool = pool
    io.execute { [io] in io.addTickHandler { now in pool.expire(now: now) } }
    if let sentinel = configuration.sentinel {
      let locator = SentinelLocator(
        sentinel, base: configuration, io: io, tls: tls, telemetry: telemetry,
        onSwitch: {
          for connection in pool.state.withLock({ $0.drainIdle() }) { connection.close() }
        })
      self.locator = locator
      watcher = Task { await locator.watch() }
    } else {
      locator = nil
      watcher = nil
    }
  }

  deinit { shutdown() }

  /// Sends `commands` together on one pooled connection and returns their replies in order. Error
  /// replies stay in the array as `.error` values; `timeout` replaces the command timeout for this call.
  /// With sentinels, a pipeline answered `READONLY` (its master was demoted) ran no write, so it is
  /// sent once more, to the master the sentinels name then.
  public func pipeline(_ commands: [RedisCommand], timeout: Duration?) async throws(RedisError) -> [RESPValue]
  {
    var attempt = 0
    while true {
      attempt += 1
      let replies = try await withConnection { connection throws(RedisError) in
        try await connection.pipeline(commands, timeout: timeout)
      }
      // The connection that answered READONLY was dropped on release; the next one asks the sentinels.
      guard locator != nil, attempt == 1, replies.contains(where: RedisConnection.isReadOnly) else {
        return replies
      }
    }
  }

  /// Runs `body` with a connection of its own (for `MULTI`…`EXEC` or `WATCH`), returning it to the pool
  /// afterwards; a connection that failed meanwhile is dropped instead.
  public func withConnection<T: Sendable>(
    _ body: (RedisConnection) async throws(RedisError) -> T
  ) async throws(RedisError) -> T {
    let connection = try await acquire()
    do {
      let result = try await body(connection)
      release(connection)
      return result
    } catch {
      release(connection)
      throw error
    }
  }

  /// The pool's current counts.
  public var statistics: Statistics {
    pool.state.withLock { Statistics(open: $0.opened, idle: $0.idle.count, waiting: $0.waiting) }
  }

  /// Closes every connection and stops the I/O thread; calls in flight and later fail with `.shutDown`.
  public func shutdown() {
    watcher?.cancel()
    let (idle, waiters) = pool.state.withLock { $0.shutDown() }
    for waiter in waiters { waiter.finish(.failure(.shutDown)) }
    for connection in idle { connection.close() }
    io.shutdown(.shutDown)
  }

  /// A connection on the client's loop that the pool does not manage.
  func openDedicatedConnection() async throws(RedisError) -> RedisConnection {
    if pool.state.withLock({ $0.isShutDown }) { throw .shutDown }
    return try await connect()
  }

  /// Opens a connection to the configured server, or to the master the sentinels name (forgotten
  /// again if the connection fails, so the next one asks them anew).
  private func connect() async throws(RedisError) -> RedisConnection {
    guard let locator else {
      return try await RedisConnection.connect(
        configuration, io: io, dial: RedisConnection.Dial(tls: tls, telemetry: telemetry))
    }
    let located = try await locator.master()
    var target = configuration
    target.host = located.master.host
    target.port = located.master.port
    do {
      return try await RedisConnection.connect(
        target, io: io,
        dial: RedisConnection.Dial(
          tls: tls, requireMaster: true, generation: located.generation, telemetry: telemetry))
    } catch {
      if error != .cancelled { locator.invalidate(located.master) }
      throw error
    }
  }

  /// True when `connection` may go back to the pool: open, and (with sentinels) of the current
  /// master; one that is not also makes the sentinels be asked again.
  private func reusable(_ connection: RedisConnection) -> Bool {
    guard let locator else { return connection.isOpen }
    if connection.isOpen && connection.generation == locator.generation && !connection.answeredReadOnly {
      return true
    }
    locator.invalidate(
      RedisServerAddress(host: connection.configuration.host, port: connection.configuration.port))
    return false
  }

  private func acquire() async throws(RedisError) -> RedisConnection {
    if Task.isCancelled { throw .cancelled }
    while true {
      let now = io.now
      let slot = ReplySlot<Grant>()
      let action = pool.state.withLock {
        $0.acquire(
          waiter: slot, now: now, deadline: Milliseconds.deadline(after: configuration.poolTimeout, now: now))
      }
      switch action {
      case .use(let connection):
        if reusable(connection) { return connection }
        release(connection)
      case .open:
        return try await open()
      case .fail(let error):
        throw error
      case .wait:
        switch try await slot.wait(start: {}).get() {
        case .connection(let connection):
          if reusable(connection) { return connection }
          release(connection)
        case .open:
          return try await open()
        }
      }
    }
  }

  /// Opens a connection in a slot the pool already reserved.
  private func open() async throws(RedisError) -> RedisConnection {
    do {
      return try await connect()
    } catch {
      slotFreed(by: error)
      throw error
    }
  }

  private func release(_ connection: RedisConnection) {
    let keep = reusable(connection)
    let handoff = pool.state.withLock {
      $0.release(connection, reusable: keep, now: io.now)
    }
    switch handoff {
    case .none:
      if !keep || pool.state.withLock({ $0.isShutDown }) { connection.close() }
    case .give(let waiter, let next):
      // A waiter that gave up (cancelled) meanwhile passes the connection on.
      if !waiter.finish(.success(.connection(next))) { release(next) }
    case .openFor(let waiter):
      hand(.success(.open), to: waiter)
    }
  }

  /// Delivers a grant or failure; a waiter that already gave up returns its open slot.
  private func hand(_ result: Result<Grant, RedisError>, to waiter: ReplySlot<Grant>) {
    guard !waiter.finish(result), case .success(.open) = result else { return }
    slotFreed(by: .cancelled)
  }

  /// An open failed (or a granted open was not used): fail or promote waiters as the pool says.
  private func slotFreed(by error: RedisError) {
    let (failed, mayOpen) = pool.state.withLock { $0.openFailed(error, now: io.now) }
    for waiter in failed { waiter.finish(.failure(error)) }
    if let mayOpen { hand(.success(.open), to: mayOpen) }
  }
}
