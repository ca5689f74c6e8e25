import Sockets
import Synchronization

/// The epoll loop thread all of a client's connections run on, with a tick that enforces deadlines.
final class RedisIOLoop: @unchecked Sendable {
  // @unchecked Sendable: `cores` and `tickHandlers` are touched only on the loop thread (through
  // `execute` or the tick); `loop` is itself thread-safe for `execute`.
  let loop: EventLoop
  /// Open connections, checked for expired deadlines on each tick.
  private var cores: [ObjectIdentifier: RedisConnectionCore] = [:]
  /// Extra per-tick work, such as expiring pool waiters; called with the monotonic time in milliseconds.
  private var tickHandlers: [@Sendable (Int) -> Void] = []
  private let stopped = Atomic<Bool>(false)

  /// Deadlines are checked this often, so they fire up to this much late.
  static let tickMilliseconds: Int32 = 10

  init() throws(SocketError) {
    loop = try EventLoop()
    // The tick closure keeps self alive while the thread runs; the loop drops it when it stops.
    try loop.start(tickMilliseconds: Self.tickMilliseconds, tick: { [self] in tick() }, onExit: {})
  }

  /// Runs `work` on the loop thread.
  func execute(_ work: @escaping @Sendable () -> Void) { loop.execute(work) }

  /// Adds work to every tick; loop thread only.
  func addTickHandler(_ handler: @escaping @Sendable (Int) -> Void) { tickHandlers.append(handler) }

  /// Tracks a connection for deadline checks; loop thread only.
  func track(_ core: RedisConnectionCore) { cores[ObjectIdentifier(core)] = core }

  /// Stops tracking a closed connection; loop thread only.
  func untrack(_ core: RedisConnectionCore) { cores[ObjectIdentifier(core)] = nil }

  /// Closes every connection with `error` and stops the thread; safe to call more than once.
  func shutdown(_ error: RedisError) {
    guard !stopped.exchange(true, ordering: .relaxed) else { return }
    loop.execute { [self] in
      for core in Array(cores.values) { core.fail(error) }
      tickHandlers.removeAll()
      loop.stop()
    }
  }

  private func tick() {
    let now = EventLoop.monotonicMilliseconds()
    // Iterating the dictionary iterates a copy, so a core that closes (and untracks itself) is safe.
    for core in cores.values { core.checkDeadlines(now: now) }
    for handler in tickHandlers { handler(now) }
  }
}
