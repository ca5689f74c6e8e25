import Clocks
import Sockets
import Synchronization

/// The epoll loop thread all of a client's connections run on, with a tick that enforces deadlines.
final class RedisIOLoop: @unchecked Sendable {
  // @unchecked Sendable: `cores` and `tickHandlers` are touched only on the loop thread (through
  // `execute` or the tick); `loop` is itself thread-safe for `execute`.
  let loop: EventLoop
  /// Where deadlines are read: the client's injected source, which also times the loop's tick.
  let time: TimeSource
  /// Open connections, checked for expired deadlines on each tick.
  private var cores: [ObjectIdentifier: RedisConnectionCore] = [:]
  /// Extra per-tick work, such as expiring pool waiters; called with the monotonic time in milliseconds.
  private var tickHandlers: [@Sendable (Int) -> Void] = []
  /// True once `shutdown` queued its work; guards `execute` so nothing is queued after it.
  private let stopped = Mutex(false)

  /// Deadlines are checked this often, so they fire up to this much late.
  static let tickMilliseconds: Int32 = 10

  init(time: TimeSource) throws(SocketError) {
    self.time = time
    loop = try EventLoop(time: time)
    // The tick closure keeps self alive while the thread runs; the loop drops it when it stops.
    try loop.start(tickMilliseconds: Self.tickMilliseconds, tick: { [self] in tick() }, onExit: {})
  }

  /// Runs `work` on the loop thread, or `otherwise` at once (on the calling thread) if the loop has been
  /// shut down. Work accepted here is queued before the shutdown's own work, so it always runs.
  func execute(_ work: @escaping @Sendable () -> Void, otherwise: () -> Void = {}) {
    let accepted = stopped.withLock { stopped in
      if stopped { return false }
      loop.execute(work)
      return true
    }
    if !accepted { otherwise() }
  }

  /// Adds work to every tick; loop thread only.
  func addTickHandler(_ handler: @escaping @Sendable (Int) -> Void) { tickHandlers.append(handler) }

  /// Tracks a connection for deadline checks; loop thread only.
  func track(_ core: RedisConnectionCore) { cores[ObjectIdentifier(core)] = core }

  /// Stops tracking a closed connection; loop thread only.
  func untrack(_ core: RedisConnectionCore) { cores[ObjectIdentifier(core)] = nil }

  /// Closes every connection with `error` and stops the thread; safe to call more than once. Work
  /// submitted afterwards takes its `otherwise` path, so no caller waits for a loop that is gone.
  func shutdown(_ error: RedisError) {
    stopped.withLock { stopped in
      if stopped { return }
      stopped = true
      loop.execute { [self] in
        for core in Array(cores.values) { core.fail(error) }
        tickHandlers.removeAll()
        loop.stop()
      }
    }
  }

  /// Now in monotonic milliseconds, the unit every deadline of the client is kept in.
  var now: Int { time.monotonicMilliseconds() }

  /// `now + duration`, saturating.
  func deadline(after duration: Duration) -> Int { Milliseconds.deadline(after: duration, now: now) }

  private func tick() {
    let now = self.now
    // Iterating the dictionary iterates a copy, so a core that closes (and untracks itself) is safe.
    for core in cores.values { core.checkDeadlines(now: now) }
    for handler in tickHandlers { handler(now) }
  }
}
