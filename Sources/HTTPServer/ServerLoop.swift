import Clocks
import Glibc
import HTTP
import Sockets
import Synchronization

/// One event loop's share of a server: it accepts, owns its connections and checks their timers.
final class ServerLoop: EventHandler, @unchecked Sendable {
  // @unchecked Sendable: every stored var is touched only on `loop`'s thread; other threads only
  // call `loop.execute`, `start` (before the thread runs) or `drain` (which hops onto the loop).
  let core: ServerCore
  let loop: EventLoop
  private(set) var connections: [Int32: Connection] = [:]
  private(set) var dateBytes: [UInt8] = []
  private var dateSecond = 0
  private(set) var draining = false
  private var drainDeadline = 0
  private var exitWaiters: [CheckedContinuation<Void, Never>] = []
  private var exited = false
  private var forced = false
  /// Handler tasks still running (the loop must outlive them so their jobs can run).
  var liveTasks = 0
  /// Every loop of the server (this one included); accepted connections are dealt out round-robin so
  /// that a burst of connections does not all land on whichever loop woke first. Set before start.
  var siblings: [ServerLoop] = []
  private var nextSibling = 0
  private var acceptPausedUntil = 0
  /// Access-log lines formatted on this loop and not yet written.
  private var logBuffer: [UInt8] = []
  /// One read buffer per loop, reused by every connection.
  let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)

  init(core: ServerCore, loop: EventLoop) {
    self.core = core
    self.loop = loop
    refreshDate()
  }

  deinit { readBuffer.deallocate() }

  func start() throws {
    try loop.start(
      tick: { [self] in tick() },
      turnEnd: { [self] in if !logBuffer.isEmpty { flushLog() } },
      onExit: { [self] in finishExit() })
    loop.execute { [self] in
      do {
        try loop.register(fd: core.listenFD, events: EpollEvents.input | EpollEvents.exclusive, handler: self)
      } catch {
        // Without the listener this loop only serves nothing; the other loop (if any) still accepts.
      }
    }
  }

  private func finishExit() {
    // Runs on the loop thread just before it ends; waiters resume on their own executors.
    exited = true
    if !logBuffer.isEmpty { flushLog() }
    siblings = []  // breaks the reference cycle between loops, so their descriptors are released
    let waiters = exitWaiters
    exitWaiters = []
    for w in waiters { w.resume() }
  }

  func forceStop() { loop.stop() }

  /// The listener is readable: accept what is waiting.
  func handle(events: UInt32) {
    if draining { return }
    for _ in 0..<64 {
      let accepted: IOResult<(fd: Int32, peer: String)>
      do {
        accepted = try Socket.accept(core.listenFD)
      } catch {
        // A connection that died in the queue only costs itself.
        if error.code == ECONNABORTED || error.code == EPROTO || error.code == EPERM { continue }
        // Out of descriptors (EMFILE and friends): the listener stays readable, so stop watching it for
        // a moment instead of spinning; the tick puts it back.
        loop.unregister(fd: core.listenFD)
        acceptPausedUntil = core.time.monotonicMilliseconds() + 200
        return
      }
      guard case .done(let (fd, peer)) = accepted else { return }
      if core.openConnections.load(ordering: .relaxed) >= core.configuration.maxConnections {
        core.busyResponse.withUnsafeBytes { _ = try? Socket.write(fd, $0) }
        Socket.close(fd)
        continue
      }
      core.openConnections.add(1, ordering: .relaxed)
      Socket.setNoDelay(fd)
      nextSibling = (nextSibling + 1) % max(siblings.count, 1)
      let target = siblings.isEmpty ? self : siblings[nextSibling]
      if target === self {
        adopt(fd: fd, peer: peer)
      } else {
        target.loop.execute { target.adopt(fd: fd, peer: peer) }
      }
    }
  }

  /// Takes over an accepted descriptor; on this loop's thread.
  func adopt(fd: Int32, peer: String) {
    let connection = Connection(fd: fd, peer: peer, owner: self, now: core.time.monotonicMilliseconds())
    do {
      if draining { throw SocketError("adopt", code: ECANCELED) }
      try loop.register(fd: fd, events: Connection.readInterest, handler: connection)
    } catch {
      core.openConnections.subtract(1, ordering: .relaxed)
      Socket.close(fd)
      return
    }
    connections[fd] = connection
  }

  /// Hands a finished request's entry to the log sink and to this loop's access-log buffer.
  func record(_ entry: AccessLogEntry) {
    core.log?(entry)
    guard let writer = core.accessLog else { return }
    writer.format(entry, &logBuffer)
    if logBuffer.count >= writer.flushBytes { flushLog() }
  }

  private func flushLog() {
    core.accessLog?.write(logBuffer)
    logBuffer.removeAll(keepingCapacity: true)
  }

  func removed(_ connection: Connection) {
    if connections[connection.fd] === connection { connections[connection.fd] = nil }
    core.openConnections.subtract(1, ordering: .relaxed)
    if draining { checkDrained() }
  }

  func taskEnded() {
    liveTasks -= 1
    if draining { checkDrained() }
  }

  private func refreshDate() {
    let now = core.time.epochSeconds()
    if now != dateSecond {
      dateSecond = now
      dateBytes = Array(HTTPDate.format(epochSeconds: now).utf8)
    }
  }

  private func tick() {
    refreshDate()
    let now = core.time.monotonicMilliseconds()
    if acceptPausedUntil != 0 && now >= acceptPausedUntil {
      acceptPausedUntil = 0
      if !draining {
        try? loop.register(
          fd: core.listenFD, events: EpollEvents.input | EpollEvents.exclusive, handler: self)
      }
    }
    for connection in connections.values { connection.timerFired(now: now) }
    if draining && !forced && now >= drainDeadline {
      forced = true
      for connection in Array(connections.values) { connection.abort() }
      drainDeadline = now + 2000
    } else if draining && forced && now >= drainDeadline {
      // Tasks that ignore cancellation are abandoned rather than holding shutdown forever.
      liveTasks = 0
      checkDrained()
    }
  }

  /// Stops accepting and closes idle connections; returns once this loop's thread has exited. The
  /// loop stops as soon as it holds no connection and no handler task (`checkDrained`, called whenever
  /// either ends). At the drain timeout the remaining connections are aborted, which cancels their
  /// handlers; a handler that ignores cancellation is abandoned 2 s later.
  func drain() async {
    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
      loop.execute { [self] in
        if exited {
          c.resume()
          return
        }
        exitWaiters.append(c)
        if draining { return }
        draining = true
        loop.unregister(fd: core.listenFD)
        drainDeadline = core.time.monotonicMilliseconds() + core.drainTimeoutMS
        for connection in Array(connections.values) { connection.drainIfIdle() }
        checkDrained()
      }
    }
  }

  private func checkDrained() {
    if connections.isEmpty && liveTasks <= 0 { loop.stop() }
  }
}
