import TestSupport
import Testing

@testable import HTTPServer

typealias Machine = ConnectionStateMachine

let timeouts = Machine.Timeouts(header: 100, idle: 1000, write: 300, linger: 50)
private let limit = 500

/// Expects the result of one step (a mutating call on a machine) to be `expected`, so that a step and
/// its check take one line.
private func expectStep<Result: Equatable>(
  _ result: Result, _ expected: Result, _ comment: Comment? = nil,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(result == expected, comment, sourceLocation: sourceLocation)
}

/// A fresh connection accepted at `now`.
private func fresh(now: Int = 10) -> Machine { Machine(timeouts: timeouts, pipelineLimit: limit, now: now) }

/// A connection whose request (parsed at `now`) is being handled.
private func handling(keepAlive: Bool = true, now: Int = 10) -> Machine {
  var m = fresh(now: now)
  expectStep(m.received(buffered: 40), .parse)
  expectStep(m.shouldParse(bufferEmpty: false, now: now), true)
  m.requestParsed(keepAlive: keepAlive)
  return m
}

/// A connection that answered without keep-alive and now lingers, since `now`.
private func lingering(now: Int = 10) -> Machine {
  var m = handling(keepAlive: false, now: now)
  m.responseQueued()
  expectStep(m.flushed(draining: false, now: now), .linger)
  return m
}

/// A kept-alive connection waiting for its next request, idle since `now`.
private func idle(now: Int = 10) -> Machine {
  var m = handling(now: now)
  m.responseQueued()
  expectStep(m.flushed(draining: false, now: now), .nextRequest)
  expectStep(m.shouldParse(bufferEmpty: true, now: now), false)
  return m
}

private func closed() -> Machine {
  var m = fresh()
  expectStep(m.close(), true)
  return m
}

@Suite(.timeLimit(.minutes(3))) struct ConnectionStateMachineTests {
  // MARK: Header timer (slowloris)

  /// A connection reading while a timer runs: a new one waiting for its head, or a kept-alive one
  /// waiting for its next request.
  enum Reading: Sendable {
    case new
    case keptAlive
  }

  @Test(
    "a reading connection's timer runs out exactly at its deadline",
    arguments: [
      (Reading.new, 10, Machine.Timer.header, 110, Machine.TimerAction.requestTimeout),
      (.keptAlive, 50, .idle, 1050, .close),
    ])
  func readingConnectionTimesOut(
    _ reading: Reading, since: Int, timer: Machine.Timer, deadline: Int, action: Machine.TimerAction
  ) {
    var m = reading == .new ? fresh(now: since) : idle(now: since)
    expectEqual(m.phase, .reading)
    expectEqual(m.timer, timer)
    expectEqual(m.deadline, deadline)
    expectStep(m.timerFired(now: deadline - 1), .none)
    expectStep(m.timerFired(now: deadline), action)
  }

  @Test func aTrickledHeadDoesNotRestartTheHeaderTimer() {
    var m = fresh(now: 10)
    for t in stride(from: 20, to: 110, by: 10) {
      expectStep(m.received(buffered: t), .parse)
      expectStep(m.shouldParse(bufferEmpty: false, now: t), true)
      m.needMore(now: t)
      expectEqual(m.deadline, 110)
    }
    expectStep(m.timerFired(now: 115), .requestTimeout)
  }

  @Test func timedOutHeadIsAnsweredThenClosedAfterLingering() {
    var m = fresh(now: 0)
    expectStep(m.timerFired(now: 100), .requestTimeout)
    m.requestFailed()
    expectEqual(m.phase, .handling)
    expectTrue(!m.keepAlive)
    expectEqual(m.deadline, 0)
    m.responseQueued()
    expectStep(m.flushed(draining: false, now: 120), .linger)
    expectEqual(m.phase, .lingering)
    expectEqual(m.deadline, 170)
  }

  @Test func malformedRequestClosesAfterItsAnswer() {
    var m = fresh()
    expectStep(m.shouldParse(bufferEmpty: false, now: 20), true)
    m.requestFailed()
    m.responseQueued()
    expectStep(m.flushed(draining: false, now: 30), .linger)
  }

  // MARK: Idle keep-alive

  @Test func idleTimerIsNotPushedBackByRepeatedEmptyChecks() {
    var m = idle(now: 50)
    expectStep(m.shouldParse(bufferEmpty: true, now: 900), false)
    expectEqual(m.deadline, 1050)
  }

  @Test func firstBytesOfTheNextRequestSwitchToTheHeaderTimer() {
    var m = idle(now: 50)
    expectStep(m.received(buffered: 3), .parse)
    expectStep(m.shouldParse(bufferEmpty: false, now: 700), true)
    m.needMore(now: 700)
    expectEqual(m.timer, .header)
    expectEqual(m.deadline, 800)
    expectStep(m.timerFired(now: 1050), .requestTimeout)
  }

  @Test func pipelinedRequestIsParsedAtOnceAfterTheResponse() {
    var m = handling()
    expectStep(m.received(buffered: 60), .wait)
    m.responseQueued()
    expectStep(m.flushed(draining: false, now: 30), .nextRequest)
    expectStep(m.shouldParse(bufferEmpty: false, now: 30), true)
    m.requestParsed(keepAlive: true)
    expectEqual(m.phase, .handling)
  }

  // MARK: Handling

  @Test func noTimerRunsWhileAHandlerRuns() {
    var m = handling(now: 10)
    expectEqual(m.deadline, 0)
    expectStep(m.timerFired(now: Int.max), .none)
    expectEqual(m.phase, .handling)
  }

  @Test func parsingWaitsWhileAHandlerRuns() {
    var m = handling()
    expectStep(m.shouldParse(bufferEmpty: false, now: 20), false)
    expectStep(m.shouldParse(bufferEmpty: true, now: 20), false)
    expectEqual(m.deadline, 0)
  }

  @Test func streamedChunksFlushWithoutFinishing() {
    var m = handling()
    for t in 20..<30 { expectStep(m.flushed(draining: false, now: t), .none) }
    expectEqual(m.phase, .handling)
    m.responseQueued()
    expectStep(m.flushed(draining: false, now: 40), .nextRequest)
  }

  @Test(arguments: [
    (true, false, Machine.FlushAction.nextRequest), (false, false, .linger), (true, true, .linger),
  ])
  func responseEndsInKeepAliveOrLinger(keepAlive: Bool, draining: Bool, expected: Machine.FlushAction) {
    var m = handling(keepAlive: keepAlive)
    m.responseQueued()
    expectStep(m.flushed(draining: draining, now: 20), expected)
  }

  @Test func closeAfterResponseOverridesKeepAlive() {
    var m = handling(keepAlive: true)
    m.closeAfterResponse()
    expectTrue(!m.keepAlive)
    m.responseQueued()
    expectStep(m.flushed(draining: false, now: 20), .linger)
  }

  @Test func nextRequestRestoresKeepAliveFromItsOwnHead() {
    var m = idle()
    expectStep(m.shouldParse(bufferEmpty: false, now: 30), true)
    m.requestParsed(keepAlive: false)
    expectTrue(!m.keepAlive)
  }

  // MARK: Pipelining limit

  @Test func pipelinedBytesUpToTheLimitKeepReading() {
    var m = handling()
    expectStep(m.received(buffered: limit), .wait)
    expectTrue(m.wantsInput)
    expectTrue(m.mayRead())
  }

  @Test func pipelinedBytesPastTheLimitPauseReading() {
    var m = handling()
    expectStep(m.received(buffered: limit + 1), .wait)
    expectTrue(!m.wantsInput)
    expectTrue(!m.mayRead())
  }

  @Test func pausedReadingResumesWithTheNextRequest() {
    var m = handling()
    _ = m.received(buffered: limit + 1)
    m.responseQueued()
    expectStep(m.flushed(draining: false, now: 20), .nextRequest)
    expectTrue(m.wantsInput)
    expectTrue(m.mayRead())
  }

  @Test func pausedReadingEndsWhenLingering() {
    var m = handling(keepAlive: false)
    _ = m.received(buffered: limit + 1)
    m.responseQueued()
    expectStep(m.flushed(draining: false, now: 20), .linger)
    expectTrue(m.wantsInput)
  }

  // MARK: Writing and backpressure

  @Test func blockedWriteWantsOutputAndArmsTheWriteTimer() {
    var m = handling()
    m.writeWouldBlock(now: 100)
    expectTrue(m.wantsOutput)
    expectEqual(m.timer, .write)
    expectEqual(m.deadline, 400)
    expectStep(m.timerFired(now: 399), .none)
    expectStep(m.timerFired(now: 400), .close)
  }

  @Test func aSecondBlockDoesNotPushTheWriteTimerBack() {
    var m = handling()
    m.writeWouldBlock(now: 100)
    m.writeWouldBlock(now: 350)
    expectEqual(m.deadline, 400)
  }

  @Test func progressGivesASlowReaderAFreshWriteTimeout() {
    var m = handling()
    m.writeWouldBlock(now: 100)
    m.wrote(now: 350)
    expectEqual(m.deadline, 650)
    expectStep(m.timerFired(now: 500), .none)
  }

  @Test func writesThatNeverBlockArmNoTimer() {
    var m = handling()
    m.wrote(now: 50)
    expectEqual(m.deadline, 0)
    expectTrue(!m.wantsOutput)
  }

  @Test func drainedQueueStopsWaitingForOutput() {
    var m = handling()
    m.writeWouldBlock(now: 100)
    expectStep(m.flushed(draining: false, now: 200), .none)
    expectTrue(!m.wantsOutput)
    expectEqual(m.deadline, 0)
    expectStep(m.timerFired(now: 10_000), .none)
  }

  @Test func blockedContinueWhileReadingUsesTheWriteTimer() {
    var m = fresh(now: 0)
    expectStep(m.shouldParse(bufferEmpty: false, now: 10), true)
    m.needMore(now: 10)
    m.writeWouldBlock(now: 20)
    expectEqual(m.timer, .write)
    expectStep(m.flushed(draining: false, now: 30), .none)
    expectEqual(m.phase, .reading)
    expectEqual(m.deadline, 0)
    m.needMore(now: 40)
    expectEqual(m.timer, .header)
    expectEqual(m.deadline, 140)
  }

  // MARK: Lingering

  @Test func lingeringDiscardsInputThenCloses() {
    var m = lingering(now: 10)
    expectStep(m.received(buffered: 10_000), .discard)
    expectTrue(m.wantsInput)
    expectStep(m.shouldParse(bufferEmpty: false, now: 20), false)
    expectStep(m.timerFired(now: 59), .none)
    expectStep(m.timerFired(now: 60), .close)
  }

  // MARK: Drain

  @Test(arguments: [true, false])
  func drainClosesOnlyIdleConnections(nothingUnread: Bool) {
    expectEqual(idle().idleForDrain(nothingUnread: nothingUnread), nothingUnread)
    expectEqual(fresh().idleForDrain(nothingUnread: nothingUnread), nothingUnread)
    expectTrue(!handling().idleForDrain(nothingUnread: nothingUnread))
    expectTrue(!lingering().idleForDrain(nothingUnread: nothingUnread))
    expectTrue(!closed().idleForDrain(nothingUnread: nothingUnread))
  }

  // MARK: Closing

  @Test func closeHappensOnce() {
    var m = handling()
    m.writeWouldBlock(now: 20)
    expectStep(m.close(), true)
    expectStep(m.close(), false)
    expectEqual(m.phase, .closed)
    expectTrue(!m.wantsOutput)
    expectEqual(m.deadline, 0)
  }

  @Test func everyEventAfterCloseIsIgnored() {
    var m = closed()
    expectStep(m.received(buffered: 10), .discard)
    expectStep(m.shouldParse(bufferEmpty: false, now: 20), false)
    m.needMore(now: 20)
    m.requestParsed(keepAlive: true)
    m.requestFailed()
    m.responseQueued()
    m.writeWouldBlock(now: 20)
    m.wrote(now: 20)
    expectStep(m.flushed(draining: false, now: 20), .none)
    expectStep(m.timerFired(now: Int.max), .none)
    expectEqual(m.phase, .closed)
    expectTrue(!m.wantsOutput)
  }

  @Test func eventsOutOfPlaceChangeNothing() {
    var m = fresh(now: 0)
    m.responseQueued()
    expectTrue(!m.responseComplete)
    expectStep(m.flushed(draining: false, now: 5), .none)
    expectEqual(m.phase, .reading)
    var l = lingering()
    let before = l
    l.requestParsed(keepAlive: true)
    l.requestFailed()
    l.needMore(now: 30)
    expectEqual(l.phase, before.phase)
    expectEqual(l.deadline, before.deadline)
  }

  @Test func deadlinesSaturateInsteadOfOverflowing() {
    var m = fresh(now: Int.max - 5)
    expectEqual(m.deadline, Int.max)
    expectStep(m.timerFired(now: Int.max), .requestTimeout)
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
    expectTrue(start.deadline > 0, "\(name)")
    var before = start
    expectStep(before.timerFired(now: start.deadline - 1), .none, "\(name)")
    var at = start
    expectStep(at.timerFired(now: start.deadline), due, "\(name)")
    var after = start
    expectStep(after.timerFired(now: start.deadline + 1_000_000), due, "\(name)")
  }

  // MARK: Random walks

  /// Invariants that hold after every event, whatever the order.
  private static func checkInvariants(_ m: Machine, _ trace: [String]) {
    let where_ = trace.suffix(6).joined(separator: " ")
    if m.phase == .closed {
      expectTrue(m.deadline == 0 && !m.wantsOutput && !m.responseComplete, "\(where_)")
    }
    if m.readPaused { expectEqual(m.phase, .handling, "\(where_)") }
    expectEqual(m.wantsOutput, m.writeBlocked, "\(where_)")
    if m.phase == .handling && !m.writeBlocked { expectEqual(m.deadline, 0, "\(where_)") }
    if m.phase == .lingering { expectTrue(m.timer == .linger && m.deadline != 0, "\(where_)") }
    if m.writeBlocked { expectTrue(m.timer == .write && m.deadline != 0, "\(where_)") }
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
      if closedSeen { expectEqual(m.phase, .closed, "closed is final: \(trace.suffix(6))") }
      closedSeen = m.phase == .closed
      Self.checkInvariants(m, trace)
    }
  }
}
