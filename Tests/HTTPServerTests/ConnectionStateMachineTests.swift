import TestSupport
import Testing

@testable import HTTPServer

typealias Machine = ConnectionStateMachine

let timeouts = Machine.Timeouts(header: 100, idle: 1000, write: 300, linger: 50)
private let limit = 500

/// A fresh connection accepted at `now`.
private func fresh(now: Int = 10) -> Machine { Machine(timeouts: timeouts, pipelineLimit: limit, now: now) }

/// A connection whose request (parsed at `now`) is being handled.
private func handling(keepAlive: Bool = true, now: Int = 10) -> Machine {
  var m = fresh(now: now)
  do {
    let result = m.received(buffered: 40)
    #expect(result == .parse)
  }
  do {
    let result = m.shouldParse(bufferEmpty: false, now: now)
    #expect(result)
  }
  m.requestParsed(keepAlive: keepAlive)
  return m
}

/// A connection that answered without keep-alive and now lingers, since `now`.
private func lingering(now: Int = 10) -> Machine {
  var m = handling(keepAlive: false, now: now)
  m.responseQueued()
  do {
    let result = m.flushed(draining: false, now: now)
    #expect(result == .linger)
  }
  return m
}

/// A kept-alive connection waiting for its next request, idle since `now`.
private func idle(now: Int = 10) -> Machine {
  var m = handling(now: now)
  m.responseQueued()
  do {
    let result = m.flushed(draining: false, now: now)
    #expect(result == .nextRequest)
  }
  do {
    let result = m.shouldParse(bufferEmpty: true, now: now)
    #expect(!result)
  }
  return m
}

private func closed() -> Machine {
  var m = fresh()
  do {
    let result = m.close()
    #expect(result)
  }
  return m
}

@Suite(.timeLimit(.minutes(3))) struct ConnectionStateMachineTests {
  // MARK: Header timer (slowloris)

  @Test func newConnectionMustSendItsHeadWithinTheHeaderTimeout() {
    var m = fresh(now: 10)
    #expect(m.phase == .reading)
    #expect(m.timer == .header)
    #expect(m.deadline == 110)
    do {
      let result = m.timerFired(now: 109)
      #expect(result == .none)
    }
    do {
      let result = m.timerFired(now: 110)
      #expect(result == .requestTimeout)
    }
  }

  @Test func aTrickledHeadDoesNotRestartTheHeaderTimer() {
    var m = fresh(now: 10)
    for t in stride(from: 20, to: 110, by: 10) {
      do {
        let result = m.received(buffered: t)
        #expect(result == .parse)
      }
      do {
        let result = m.shouldParse(bufferEmpty: false, now: t)
        #expect(result)
      }
      m.needMore(now: t)
      #expect(m.deadline == 110)
    }
    do {
      let result = m.timerFired(now: 115)
      #expect(result == .requestTimeout)
    }
  }

  @Test func timedOutHeadIsAnsweredThenClosedAfterLingering() {
    var m = fresh(now: 0)
    do {
      let result = m.timerFired(now: 100)
      #expect(result == .requestTimeout)
    }
    m.requestFailed()
    #expect(m.phase == .handling)
    #expect(!m.keepAlive)
    #expect(m.deadline == 0)
    m.responseQueued()
    do {
      let result = m.flushed(draining: false, now: 120)
      #expect(result == .linger)
    }
    #expect(m.phase == .lingering)
    #expect(m.deadline == 170)
  }

  @Test func malformedRequestClosesAfterItsAnswer() {
    var m = fresh()
    do {
      let result = m.shouldParse(bufferEmpty: false, now: 20)
      #expect(result)
    }
    m.requestFailed()
    m.responseQueued()
    do {
      let result = m.flushed(draining: false, now: 30)
      #expect(result == .linger)
    }
  }

  // MARK: Idle keep-alive

  @Test func keptAliveConnectionWaitsIdleThenCloses() {
    var m = idle(now: 50)
    #expect(m.phase == .reading)
    #expect(m.timer == .idle)
    #expect(m.deadline == 1050)
    do {
      let result = m.timerFired(now: 1049)
      #expect(result == .none)
    }
    do {
      let result = m.timerFired(now: 1050)
      #expect(result == .close)
    }
  }

  @Test func idleTimerIsNotPushedBackByRepeatedEmptyChecks() {
    var m = idle(now: 50)
    do {
      let result = m.shouldParse(bufferEmpty: true, now: 900)
      #expect(!result)
    }
    #expect(m.deadline == 1050)
  }

  @Test func firstBytesOfTheNextRequestSwitchToTheHeaderTimer() {
    var m = idle(now: 50)
    do {
      let result = m.received(buffered: 3)
      #expect(result == .parse)
    }
    do {
      let result = m.shouldParse(bufferEmpty: false, now: 700)
      #expect(result)
    }
    m.needMore(now: 700)
    #expect(m.timer == .header)
    #expect(m.deadline == 800)
    do {
      let result = m.timerFired(now: 1050)
      #expect(result == .requestTimeout)
    }
  }

  @Test func pipelinedRequestIsParsedAtOnceAfterTheResponse() {
    var m = handling()
    do {
      let result = m.received(buffered: 60)
      #expect(result == .wait)
    }
    m.responseQueued()
    do {
      let result = m.flushed(draining: false, now: 30)
      #expect(result == .nextRequest)
    }
    do {
      let result = m.shouldParse(bufferEmpty: false, now: 30)
      #expect(result)
    }
    m.requestParsed(keepAlive: true)
    #expect(m.phase == .handling)
  }

  // MARK: Handling

  @Test func noTimerRunsWhileAHandlerRuns() {
    var m = handling(now: 10)
    #expect(m.deadline == 0)
    do {
      let result = m.timerFired(now: Int.max)
      #expect(result == .none)
    }
    #expect(m.phase == .handling)
  }

  @Test func parsingWaitsWhileAHandlerRuns() {
    var m = handling()
    do {
      let result = m.shouldParse(bufferEmpty: false, now: 20)
      #expect(!result)
    }
    do {
      let result = m.shouldParse(bufferEmpty: true, now: 20)
      #expect(!result)
    }
    #expect(m.deadline == 0)
  }

  @Test func streamedChunksFlushWithoutFinishing() {
    var m = handling()
    for t in 20..<30 {
      let result = m.flushed(draining: false, now: t)
      #expect(result == .none)
    }
    #expect(m.phase == .handling)
    m.responseQueued()
    do {
      let result = m.flushed(draining: false, now: 40)
      #expect(result == .nextRequest)
    }
  }

  @Test(arguments: [
    (true, false, Machine.FlushAction.nextRequest), (false, false, .linger), (true, true, .linger),
  ])
  func responseEndsInKeepAliveOrLinger(keepAlive: Bool, draining: Bool, expected: Machine.FlushAction) {
    var m = handling(keepAlive: keepAlive)
    m.responseQueued()
    do {
      let result = m.flushed(draining: draining, now: 20)
      #expect(result == expected)
    }
  }

  @Test func closeAfterResponseOverridesKeepAlive() {
    var m = handling(keepAlive: true)
    m.closeAfterResponse()
    #expect(!m.keepAlive)
    m.responseQueued()
    do {
      let result = m.flushed(draining: false, now: 20)
      #expect(result == .linger)
    }
  }

  @Test func nextRequestRestoresKeepAliveFromItsOwnHead() {
    var m = idle()
    do {
      let result = m.shouldParse(bufferEmpty: false, now: 30)
      #expect(result)
    }
    m.requestParsed(keepAlive: false)
    #expect(!m.keepAlive)
  }

  // MARK: Pipelining limit

  @Test func pipelinedBytesUpToTheLimitKeepReading() {
    var m = handling()
    do {
      let result = m.received(buffered: limit)
      #expect(result == .wait)
    }
    #expect(m.wantsInput)
    #expect(m.mayRead())
  }

  @Test func pipelinedBytesPastTheLimitPauseReading() {
    var m = handling()
    do {
      let result = m.received(buffered: limit + 1)
      #expect(result == .wait)
    }
    #expect(!m.wantsInput)
    #expect(!m.mayRead())
  }

  @Test func pausedReadingResumesWithTheNextRequest() {
    var m = handling()
    _ = m.received(buffered: limit + 1)
    m.responseQueued()
    do {
      let result = m.flushed(draining: false, now: 20)
      #expect(result == .nextRequest)
    }
    #expect(m.wantsInput)
    #expect(m.mayRead())
  }

  @Test func pausedReadingEndsWhenLingering() {
    var m = handling(keepAlive: false)
    _ = m.received(buffered: limit + 1)
    m.responseQueued()
    do {
      let result = m.flushed(draining: false, now: 20)
      #expect(result == .linger)
    }
    #expect(m.wantsInput)
  }

  // MARK: Writing and backpressure

  @Test func blockedWriteWantsOutputAndArmsTheWriteTimer() {
    var m = handling()
    m.writeWouldBlock(now: 100)
    #expect(m.wantsOutput)
    #expect(m.timer == .write)
    #expect(m.deadline == 400)
    do {
      let result = m.timerFired(now: 399)
      #expect(result == .none)
    }
    do {
      let result = m.timerFired(now: 400)
      #expect(result == .close)
    }
  }

  @Test func aSecondBlockDoesNotPushTheWriteTimerBack() {
    var m = handling()
    m.writeWouldBlock(now: 100)
    m.writeWouldBlock(now: 350)
    #expect(m.deadline == 400)
  }

  @Test func progressGivesASlowReaderAFreshWriteTimeout() {
    var m = handling()
    m.writeWouldBlock(now: 100)
    m.wrote(now: 350)
    #expect(m.deadline == 650)
    do {
      let result = m.timerFired(now: 500)
      #expect(result == .none)
    }
  }

  @Test func writesThatNeverBlockArmNoTimer() {
    var m = handling()
    m.wrote(now: 50)
    #expect(m.deadline == 0)
    #expect(!m.wantsOutput)
  }

  @Test func drainedQueueStopsWaitingForOutput() {
    var m = handling()
    m.writeWouldBlock(now: 100)
    do {
      let result = m.flushed(draining: false, now: 200)
      #expect(result == .none)
    }
    #expect(!m.wantsOutput)
    #expect(m.deadline == 0)
    do {
      let result = m.timerFired(now: 10_000)
      #expect(result == .none)
    }
  }

  @Test func blockedContinueWhileReadingUsesTheWriteTimer() {
    var m = fresh(now: 0)
    do {
      let result = m.shouldParse(bufferEmpty: false, now: 10)
      #expect(result)
    }
    m.needMore(now: 10)
    m.writeWouldBlock(now: 20)
    #expect(m.timer == .write)
    do {
      let result = m.flushed(draining: false, now: 30)
      #expect(result == .none)
    }
    #expect(m.phase == .reading)
    #expect(m.deadline == 0)
    m.needMore(now: 40)
    #expect(m.timer == .header)
    #expect(m.deadline == 140)
  }

  // MARK: Lingering

  @Test func lingeringDiscardsInputThenCloses() {
    var m = lingering(now: 10)
    do {
      let result = m.received(buffered: 10_000)
      #expect(result == .discard)
    }
    #expect(m.wantsInput)
    do {
      let result = m.shouldParse(bufferEmpty: false, now: 20)
      #expect(!result)
    }
    do {
      let result = m.timerFired(now: 59)
      #expect(result == .none)
    }
    do {
      let result = m.timerFired(now: 60)
      #expect(result == .close)
    }
  }

  // MARK: Drain

  @Test(arguments: [true, false])
  func drainClosesOnlyIdleConnections(bufferEmpty: Bool) {
    #expect(idle().idleForDrain(bufferEmpty: bufferEmpty) == bufferEmpty)
    #expect(fresh().idleForDrain(bufferEmpty: bufferEmpty) == bufferEmpty)
    #expect(!handling().idleForDrain(bufferEmpty: bufferEmpty))
    #expect(!lingering().idleForDrain(bufferEmpty: bufferEmpty))
    #expect(!closed().idleForDrain(bufferEmpty: bufferEmpty))
  }

  // MARK: Closing

  @Test func closeHappensOnce() {
    var m = handling()
    m.writeWouldBlock(now: 20)
    do {
      let result = m.close()
      #expect(result)
    }
    do {
      let result = m.close()
      #expect(!result)
    }
    #expect(m.phase == .closed)
    #expect(!m.wantsOutput)
    #expect(m.deadline == 0)
  }

  @Test func everyEventAfterCloseIsIgnored() {
    var m = closed()
    do {
      let result = m.received(buffered: 10)
      #expect(result == .discard)
    }
    do {
      let result = m.shouldParse(bufferEmpty: false, now: 20)
      #expect(!result)
    }
    m.needMore(now: 20)
    m.requestParsed(keepAlive: true)
    m.requestFailed()
    m.responseQueued()
    m.writeWouldBlock(now: 20)
    m.wrote(now: 20)
    do {
      let result = m.flushed(draining: false, now: 20)
      #expect(result == .none)
    }
    do {
      let result = m.timerFired(now: Int.max)
      #expect(result == .none)
    }
    #expect(m.phase == .closed)
    #expect(!m.wantsOutput)
  }

  @Test func eventsOutOfPlaceChangeNothing() {
    var m = fresh(now: 0)
    m.responseQueued()
    #expect(!m.responseComplete)
    do {
      let result = m.flushed(draining: false, now: 5)
      #expect(result == .none)
    }
    #expect(m.phase == .reading)
    var l = lingering()
    let before = l
    l.requestParsed(keepAlive: true)
    l.requestFailed()
    l.needMore(now: 30)
    #expect(l.phase == before.phase)
    #expect(l.deadline == before.deadline)
  }

  @Test func deadlinesSaturateInsteadOfOverflowing() {
    var m = fresh(now: Int.max - 5)
    #expect(m.deadline == Int.max)
    do {
      let result = m.timerFired(now: Int.max)
      #expect(result == .requestTimeout)
    }
  }

  // MARK: Every timer in every phase

  /// Each reachable (phase, timer) pair, the time its timer was armed at, and the answer due once
  /// it expires.
  static let timerCases: [(String, Machine, Machine.TimerAction)] = {
    var blockedWhileReading = fresh(now: 0)
    blockedWhileReading.writeWouldBlock(now: 0)
    var blockedWhileHandling = handling(now: 0)
    blockedWhileHandling.writeWouldBlock(now: 0)
    return [
      ("fresh", fresh(now: 0), .requestTimeout),
      ("idle", idle(now: 0), .close),
      ("write while reading", blockedWhileReading, .close),
      ("write while handling", blockedWhileHandling, .close),
      ("lingering", lingering(now: 0), .close),
    ]
  }()

  @Test(arguments: 0..<5)
  func timersFireExactlyAtTheirDeadline(index: Int) {
    let (name, start, due) = Self.timerCases[index]
    #expect(start.deadline > 0, "\(name)")
    var before = start
    do {
      let result = before.timerFired(now: start.deadline - 1)
      #expect(result == .none, "\(name)")
    }
    var at = start
    do {
      let result = at.timerFired(now: start.deadline)
      #expect(result == due, "\(name)")
    }
    var after = start
    do {
      let result = after.timerFired(now: start.deadline + 1_000_000)
      #expect(result == due, "\(name)")
    }
  }

  // MARK: Random walks

  /// Invariants that hold after every event, whatever the order.
  private static func checkInvariants(_ m: Machine, _ trace: [String]) {
    let where_ = trace.suffix(6).joined(separator: " ")
    if m.phase == .closed {
      #expect(m.deadline == 0 && !m.wantsOutput && !m.responseComplete, "\(where_)")
    }
    if m.readPaused { #expect(m.phase == .handling, "\(where_)") }
    #expect(m.wantsOutput == m.writeBlocked, "\(where_)")
    if m.phase == .handling && !m.writeBlocked { #expect(m.deadline == 0, "\(where_)") }
    if m.phase == .lingering { #expect(m.timer == .linger && m.deadline != 0, "\(where_)") }
    if m.writeBlocked { #expect(m.timer == .write && m.deadline != 0, "\(where_)") }
  }

  @Test(arguments: 0..<8)
  func randomEventOrdersKeepTheInvariants(seed: UInt64) {
    var random = SeededGenerator(state: seed &* 0x9E37_79B9 &+ 1)
    var m = fresh(now: 0)
    var now = 0
    var trace: [String] = []
    var closedSeen = false
    for _ in 0..<400 {
      now += Int.random(in: 0...80, using: &random)
      let event = Int.random(in: 0..<12, using: &random)
      trace.append("\(event)@\(now)")
      switch event {
      case 0: _ = m.received(buffered: Int.random(in: 1...(2 * limit), using: &random))
      case 1: _ = m.shouldParse(bufferEmpty: Bool.random(using: &random), now: now)
      case 2: m.needMore(now: now)
      case 3: m.requestParsed(keepAlive: Bool.random(using: &random))
      case 4: m.requestFailed()
      case 5: m.responseQueued()
      case 6: m.writeWouldBlock(now: now)
      case 7: m.wrote(now: now)
      case 8: _ = m.flushed(draining: Int.random(in: 0..<10, using: &random) == 0, now: now)
      case 9:
        switch m.timerFired(now: now) {
        case .none: break
        case .requestTimeout: m.requestFailed()
        case .close: _ = m.close()
        }
      case 10: if Int.random(in: 0..<20, using: &random) == 0 { _ = m.close() }
      default: m.closeAfterResponse()
      }
      if closedSeen { #expect(m.phase == .closed, "closed is final: \(trace.suffix(6))") }
      closedSeen = m.phase == .closed
      Self.checkInvariants(m, trace)
    }
  }
}
