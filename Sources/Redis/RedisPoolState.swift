/// The connection pool's bookkeeping as a pure value: which connections are idle, how many are open
/// or opening (never more than `size`), who waits and until when, and the reconnect delay after a
/// failed connect. Time is passed in, in milliseconds, so tests drive it without a clock.
struct RedisPoolState<Connection, Waiter> {
  /// What a caller asking for a connection should do.
  enum Acquire {
    /// Use this idle connection (check that it is still open).
    case use(Connection)
    /// Open a new connection; a slot is reserved for it.
    case open
    /// Wait: a connection or a turn to open one will be handed over, or the waiter expires.
    case wait
    /// Fail now.
    case fail(RedisError)
  }

  /// What to do after a connection came back or a slot was freed.
  enum Handoff {
    /// Nothing: the connection went idle, or nobody waits.
    case none
    /// Give the connection to this waiter.
    case give(Waiter, Connection)
    /// This waiter may open a connection in the freed slot.
    case openFor(Waiter)
  }

  let size: Int
  let maxWaiters: Int
  let reconnectDelay: Int
  private(set) var idle: [Connection] = []
  /// Connections open or being opened.
  private(set) var opened = 0
  private var waiters: [(waiter: Waiter, deadline: Int)] = []
  private var blockedUntil = Int.min
  private var lastError: RedisError = .connectionLost("reconnect delay")
  private(set) var isShutDown = false

  init(size: Int, maxWaiters: Int, reconnectDelay: Int) {
    self.size = max(1, size)
    self.maxWaiters = max(0, maxWaiters)
    self.reconnectDelay = max(0, reconnectDelay)
  }

  /// The number of callers waiting.
  var waiting: Int { waiters.count }

  /// A caller wants a connection; `waiter` and `deadline` are used only if it has to wait.
  mutating func acquire(waiter: Waiter, now: Int, deadline: Int) -> Acquire {
    if isShutDown { return .fail(.shutDown) }
    if let connection = idle.popLast() { return .use(connection) }
    if opened < size {
      if now < blockedUntil { return .fail(lastError) }
      opened += 1
      return .open
    }
    if waiters.count >= maxWaiters { return .fail(.poolExhausted) }
    waiters.append((waiter, deadline))
    return .wait
  }

  /// A connection came back: still usable (`reusable`) or dead (its slot is freed).
  mutating func release(_ connection: Connection, reusable: Bool, now: Int) -> Handoff {
    if isShutDown {
      opened -= 1
      return .none
    }
    if reusable {
      if !waiters.isEmpty { return .give(waiters.removeFirst().waiter, connection) }
      idle.append(connection)
      return .none
    }
    opened -= 1
    return handOffFreedSlot(now: now)
  }

  /// Opening a connection failed. Unless it was the caller's cancellation, new opens are refused with
  /// `error` for the reconnect delay, and waiters are failed when no connection is left to serve them.
  /// A cancelled open instead passes its slot to the first waiter (`mayOpen`).
  mutating func openFailed(_ error: RedisError, now: Int) -> (failed: [Waiter], mayOpen: Waiter?) {
    opened -= 1
    if error == .cancelled {
      if case .openFor(let waiter) = handOffFreedSlot(now: now) { return ([], waiter) }
      return ([], nil)
    }
    lastError = error
    blockedUntil = now + reconnectDelay
    guard opened == 0 else { return ([], nil) }
    defer { waiters.removeAll() }
    return (waiters.map(\.waiter), nil)
  }

  /// Removes and returns the idle connections, to close (the master changed: they lead to the old one).
  mutating func drainIdle() -> [Connection] {
    defer {
      opened -= idle.count
      idle.removeAll()
    }
    return idle
  }

  /// Removes and returns waiters whose deadline has passed.
  mutating func expire(now: Int) -> [Waiter] {
    guard waiters.contains(where: { $0.deadline <= now }) else { return [] }
    let expired = waiters.filter { $0.deadline <= now }.map(\.waiter)
    waiters.removeAll { $0.deadline <= now }
    return expired
  }

  /// Stops the pool: returns the idle connections to close and the waiters to fail.
  mutating func shutDown() -> (idle: [Connection], waiters: [Waiter]) {
    isShutDown = true
    defer {
      opened -= idle.count
      idle.removeAll()
      waiters.removeAll()
    }
    return (idle, waiters.map(\.waiter))
  }

  /// A slot was freed: the first waiter may open in it, unless the reconnect delay is running
  /// (then waiters keep waiting for a busy connection or their deadline).
  private mutating func handOffFreedSlot(now: Int) -> Handoff {
    guard !waiters.isEmpty, now >= blockedUntil, opened < size else { return .none }
    opened += 1
    return .openFor(waiters.removeFirst().waiter)
  }
}
extension RedisPoolState: Sendable where Connection: Sendable, Waiter: Sendable {}
