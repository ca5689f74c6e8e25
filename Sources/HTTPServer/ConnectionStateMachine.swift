/// The lifecycle of one connection as a value: reading a request, running its handler, writing the
/// response, then reading again (keep-alive) or lingering and closing.
///
/// It does no I/O and reads no clock: `Connection` reports each event (with the current monotonic
/// milliseconds where a timer may be armed, evaluated only if one is) and carries out the returned
/// action. The descriptor's
/// wanted readiness is `wantsInput`/`wantsOutput`, which `Connection` mirrors into epoll.
///
/// ```swift
/// var machine = ConnectionStateMachine(timeouts: timeouts, pipelineLimit: 40_960, now: 0)
/// switch machine.received(buffered: 120) {
/// case .parse: ...  // run the parser; report `needMore`, `requestParsed` or `requestFailed`
/// case .wait, .discard: ...
/// }
/// ```
struct ConnectionStateMachine: Sendable {
  enum Phase: Equatable, Sendable {
    /// Waiting for (the rest of) a request.
    case reading
    /// A handler runs, or an answer is being written.
    case handling
    /// The write side is shut; input is discarded until the peer closes or the linger timer fires.
    case lingering
    /// Closed; every later event is ignored.
    case closed
  }

  /// What the armed deadline guards.
  enum Timer: Equatable, Sendable {
    /// A request has begun (or the connection is new) and its head must complete: 408.
    case header
    /// A kept-alive connection waits for its next request.
    case idle
    /// Queued bytes wait for the peer to read them.
    case write
    /// A half-closed connection waits for the peer to close.
    case linger
  }

  /// Timer lengths in milliseconds.
  struct Timeouts: Equatable, Sendable {
    var header: Int
    var idle: Int
    var write: Int
    var linger: Int = 2000
  }

  /// After `received`: what to do with the bytes just read.
  enum ReceiveAction: Equatable, Sendable {
    /// Append them and run the parser.
    case parse
    /// Append them and leave them for after the current response (reading may have paused).
    case wait
    /// Drop them (lingering or closed).
    case discard
  }

  /// After `flushed`: what the end of writing calls for.
  enum FlushAction: Equatable, Sendable {
    /// Nothing: the response is not complete yet.
    case none
    /// The response is done and the connection stays: parse whatever is buffered.
    case nextRequest
    /// The response is done and the connection ends: shut the write side and linger.
    case linger
  }

  /// After `timerFired`: what the expired deadline calls for.
  enum TimerAction: Equatable, Sendable {
    /// No deadline has passed.
    case none
    /// The request head did not arrive in time: answer 408 (then close).
    case requestTimeout
    /// Close at once.
    case close
  }

  let timeouts: Timeouts
  /// Bytes that may wait behind a running request before reading pauses.
  let pipelineLimit: Int
  private(set) var phase = Phase.reading
  private(set) var timer = Timer.header
  /// Monotonic milliseconds at which `timer` fires; 0 when none is armed.
  private(set) var deadline = 0
  /// Whether the connection stays open after the current response.
  private(set) var keepAlive = true
  /// The last byte of the current response is queued; finishing waits for the queue to drain.
  private(set) var responseComplete = false
  /// A write would block: writability is wanted and the write timer runs.
  private(set) var writeBlocked = false
  /// Too many pipelined bytes wait: input is not read (a hang-up is still noticed).
  private(set) var readPaused = false

  /// A new connection, whose first request head must arrive within the header timeout.
  init(timeouts: Timeouts, pipelineLimit: Int, now: Int) {
    self.timeouts = timeouts
    self.pipelineLimit = pipelineLimit
    arm(.header, now: now)
  }

  /// Whether the descriptor should report readable input (it always reports a read hang-up).
  var wantsInput: Bool { !readPaused }
  /// Whether the descriptor should report writability.
  var wantsOutput: Bool { writeBlocked }
  var isOpen: Bool { phase != .closed }
  var isHandling: Bool { phase == .handling }

  // MARK: Reading

  /// The descriptor is readable. False when the connection should close instead of reading: reading
  /// is paused, so only a hang-up gets here and the peer sent too much and left.
  func mayRead() -> Bool {
    switch phase {
    case .handling: return !readPaused
    case .reading, .lingering, .closed: return true
    }
  }

  /// `buffered` unconsumed bytes are held, counting the ones just read.
  mutating func received(buffered: Int) -> ReceiveAction {
    switch phase {
    case .reading: return .parse
    case .handling:
      if buffered > pipelineLimit { readPaused = true }
      return .wait
    case .lingering, .closed: return .discard
    }
  }

  /// Whether to run the parser now; arms the idle timer when nothing is buffered.
  mutating func shouldParse(bufferEmpty: Bool, now: @autoclosure () -> Int) -> Bool {
    switch phase {
    case .reading:
      guard bufferEmpty else { return true }
      if !writeBlocked && (timer != .idle || deadline == 0) { arm(.idle, now: now()) }
      return false
    case .handling, .lingering, .closed: return false
    }
  }

  /// A request has begun but is incomplete: its head must arrive within the header timeout, counted
  /// from its first bytes (a trickle does not restart it). A blocked write keeps its own timer.
  mutating func needMore(now: @autoclosure () -> Int) {
    switch phase {
    case .reading: if !writeBlocked && (timer != .header || deadline == 0) { arm(.header, now: now()) }
    case .handling, .lingering, .closed: break
    }
  }

  /// A complete request: start its handler. Timers stop while it runs, except the write timer of an
  /// interim 100 response still waiting for the peer.
  mutating func requestParsed(keepAlive: Bool) {
    switch phase {
    case .reading:
      phase = .handling
      self.keepAlive = keepAlive
      if !writeBlocked { deadline = 0 }
    case .handling, .lingering, .closed: break
    }
  }

  /// The bytes are not an acceptable request (or the head timed out): answer the error, then close.
  mutating func requestFailed() {
    switch phase {
    case .reading, .handling:
      phase = .handling
      keepAlive = false
      if !writeBlocked { deadline = 0 }
    case .lingering, .closed: break
    }
  }

  // MARK: Responding

  /// The response must end the connection (server draining, or an HTTP/1.0 body sent until close).
  mutating func closeAfterResponse() { keepAlive = false }

  /// The last byte of the response is queued; the connection finishes once the queue drains.
  mutating func responseQueued() {
    switch phase {
    case .handling: responseComplete = true
    case .reading, .lingering, .closed: break
    }
  }

  // MARK: Writing

  /// A write would block: wait for writability, for at most the write timeout.
  mutating func writeWouldBlock(now: Int) {
    switch phase {
    case .reading, .handling:
      guard !writeBlocked else { return }
      writeBlocked = true
      arm(.write, now: now)
    case .lingering, .closed: break  // nothing is written once the write side is shut
    }
  }

  /// Some bytes were written: a slow reader that makes progress gets a fresh write timeout.
  mutating func wrote(now: @autoclosure () -> Int) {
    if writeBlocked && timer == .write { arm(.write, now: now()) }
  }

  /// Everything queued has been written. `draining` is true while the server shuts down.
  mutating func flushed(draining: Bool, now: @autoclosure () -> Int) -> FlushAction {
    guard isOpen else { return .none }
    writeBlocked = false
    if timer == .write { deadline = 0 }
    guard responseComplete else { return .none }
    responseComplete = false
    switch phase {
    case .handling:
      readPaused = false
      if !keepAlive || draining {
        phase = .lingering
        arm(.linger, now: now())
        return .linger
      }
      phase = .reading
      deadline = 0
      return .nextRequest
    case .reading, .lingering, .closed: return .none
    }
  }

  // MARK: Ending

  /// The loop's periodic check at `now`.
  mutating func timerFired(now: Int) -> TimerAction {
    guard deadline != 0, now >= deadline else { return .none }
    switch timer {
    case .header:
      switch phase {
      case .reading: return .requestTimeout
      case .handling, .lingering, .closed: return .close
      }
    case .idle, .write, .linger: return .close
    }
  }

  /// During shutdown: whether to close now because no request is in progress. `nothingUnread`: no
  /// byte of a next request waits, in the connection's buffer or the kernel's.
  func idleForDrain(nothingUnread: Bool) -> Bool {
    switch phase {
    case .reading: return nothingUnread
    case .handling, .lingering, .closed: return false
    }
  }

  /// Closes; false if it was already closed.
  mutating func close() -> Bool {
    guard isOpen else { return false }
    phase = .closed
    deadline = 0
    writeBlocked = false
    readPaused = false
    responseComplete = false
    return true
  }

  private mutating func arm(_ timer: Timer, now: Int) {
    self.timer = timer
    let length: Int
    switch timer {
    case .header: length = timeouts.header
    case .idle: length = timeouts.idle
    case .write: length = timeouts.write
    case .linger: length = timeouts.linger
    }
    let (sum, overflow) = now.addingReportingOverflow(length)
    deadline = overflow ? Int.max : sum
  }
}
