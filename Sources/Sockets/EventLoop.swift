import CEpoll
import Clocks
import Glibc
import Synchronization

/// Something that owns a descriptor registered with an `EventLoop`; called on the loop thread.
public protocol EventHandler: AnyObject {
  /// Called with the ready epoll event mask.
  func handle(events: UInt32)
}

/// An epoll loop on its own thread. It also acts as a `TaskExecutor`, so tasks started with it as
/// their executor preference run on the loop thread and can touch loop-confined state directly.
public final class EventLoop: TaskExecutor, @unchecked Sendable {
  // @unchecked Sendable: `handlers`, `tickHandler`, `turnEndHandler` and `stopping` are touched only on the loop thread;
  // cross-thread work goes through the `queue` mutex and the eventfd.
  private enum Work {
    case job(UnownedJob)
    case closure(@Sendable () -> Void)
  }

  private struct Queue {
    var items: [Work] = []
    var wakeScheduled = false
  }

  private let epfd: Int32
  private let wakeFD: Int32
  private let queue = Mutex(Queue())
  private let threadID = Atomic<UInt>(0)
  private var handlers: [(any EventHandler)?] = []
  private var stopping = false
  private var tickHandler: (() -> Void)?
  private var turnEndHandler: (() -> Void)?
  private var tickMilliseconds: Int32 = 100
  private var onExit: (@Sendable () -> Void)?
  /// Times the tick; the same source as the deadlines the tick checks.
  private let time: TimeSource
  /// The drained batch; swapped with the queue's array so that neither buffer is reallocated.
  private var batch: [Work] = []

  /// Creates the epoll instance and wake-up eventfd; `time` times the tick.
  public init(time: TimeSource) throws(SocketError) {
    self.time = time
    epfd = try Syscall.check("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
    do {
      wakeFD = try Syscall.check("eventfd") { cepoll_eventfd() }
    } catch {
      Glibc.close(epfd)
      throw error
    }
    _ = cepoll_ctl(epfd, EPOLL_CTL_ADD, wakeFD, CEPOLL_IN)
  }

  deinit {
    Glibc.close(wakeFD)
    Glibc.close(epfd)
  }

  /// True when called on this loop's thread.
  public var inLoop: Bool {
    threadID.load(ordering: .relaxed) == UInt(bitPattern: Int(bitPattern: pthread_self()))
  }

  /// Registers `fd` for `events`; loop thread only.
  public func register(fd: Int32, events: UInt32, handler: any EventHandler) throws(SocketError) {
    assert(inLoop, "EventLoop.register off the loop thread")
    let index = Int(fd)
    if index >= handlers.count {
      handlers.append(contentsOf: repeatElement(nil, count: index + 64 - handlers.count))
    }
    handlers[index] = handler
    _ = try Syscall.check("epoll_ctl add") { cepoll_ctl(epfd, EPOLL_CTL_ADD, fd, events) }
  }

  /// Changes the events `fd` waits for; loop thread only.
  public func modify(fd: Int32, events: UInt32) {
    assert(inLoop, "EventLoop.modify off the loop thread")
    _ = cepoll_ctl(epfd, EPOLL_CTL_MOD, fd, events)
  }

  /// Removes `fd` (before closing it); loop thread only.
  public func unregister(fd: Int32) {
    assert(inLoop, "EventLoop.unregister off the loop thread")
    _ = cepoll_ctl(epfd, EPOLL_CTL_DEL, fd, 0)
    if Int(fd) < handlers.count { handlers[Int(fd)] = nil }
  }

  /// Runs `work` on the loop thread soon (after the current event batch).
  public func execute(_ work: @escaping @Sendable () -> Void) { push(.closure(work)) }

  /// Runs a task job on the loop thread.
  public func enqueue(_ job: consuming ExecutorJob) { push(.job(UnownedJob(job))) }

  private func push(_ work: Work) {
    let mustWake = queue.withLock { q in
      q.items.append(work)
      if q.wakeScheduled { return false }
      q.wakeScheduled = true
      return true
    }
    if mustWake && !inLoop {
      var one: UInt64 = 1
      _ = Glibc.write(wakeFD, &one, 8)
    }
  }

  /// Starts the loop thread. `tick` runs on it about every `tickMilliseconds`, `turnEnd` after each
  /// batch of events and queued work (for writes worth batching), `onExit` after it stops.
  public func start(
    tickMilliseconds: Int32 = 100, tick: @escaping () -> Void, turnEnd: (() -> Void)? = nil,
    onExit: @escaping @Sendable () -> Void
  ) throws(SocketError) {
    self.tickHandler = tick
    self.turnEndHandler = turnEnd
    self.tickMilliseconds = tickMilliseconds
    self.onExit = onExit
    // The thread keeps the loop alive until `run` returns.
    try DetachedThread.start { self.run() }
  }

  /// Makes the loop exit after the current iteration; loop thread only.
  public func stop() {
    assert(inLoop, "EventLoop.stop off the loop thread")
    stopping = true
  }

  private func run() {
    threadID.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .relaxed)
    var events = [cepoll_event](repeating: cepoll_event(), count: 256)
    var lastTick = time.monotonicMilliseconds()
    while !stopping {
      let hasWork = queue.withLock { !$0.items.isEmpty }
      // The one real tick: epoll's timeout runs on the kernel's clock; `time` only decides when it is due.
      let timeout: Int32 = hasWork ? 0 : tickMilliseconds
      let count = events.withUnsafeMutableBufferPointer { buf in
        cepoll_wait(epfd, buf.baseAddress, Int32(buf.count), timeout)
      }
      if count > 0 {
        for i in 0..<Int(count) {
          let event = events[i]
          if event.fd == wakeFD {
            var value: UInt64 = 0
            _ = Glibc.read(wakeFD, &value, 8)
            continue
          }
          let index = Int(event.fd)
          if index < handlers.count, let handler = handlers[index] { handler.handle(events: event.events) }
        }
      }
      drainQueue()
      turnEndHandler?()
      let now = time.monotonicMilliseconds()
      if now - lastTick >= Int(tickMilliseconds) {
        lastTick = now
        tickHandler?()
      }
    }
    // Let anything still queued (for example cancelled tasks finishing) run once more.
    drainQueue()
    handlers.removeAll()
    tickHandler = nil
    turnEndHandler = nil
    onExit?()
    onExit = nil
  }

  private func drainQueue() {
    // Bounded so that a task that keeps rescheduling itself cannot starve I/O.
    for _ in 0..<4 {
      queue.withLock { q in
        q.wakeScheduled = false
        swap(&q.items, &batch)
      }
      if batch.isEmpty { return }
      let executor = asUnownedTaskExecutor()
      for item in batch {
        switch item {
        case .job(let job): job.runSynchronously(on: executor)
        case .closure(let work): work()
        }
      }
      batch.removeAll(keepingCapacity: true)
    }
  }

}

/// epoll event bits, re-exported so that users of `EventLoop` need not import the C module.
public enum EpollEvents {
  /// Readable.
  public static let input: UInt32 = CEPOLL_IN
  /// Writable.
  public static let output: UInt32 = CEPOLL_OUT
  /// Peer closed its writing side.
  public static let readHangUp: UInt32 = CEPOLL_RDHUP
  /// Error condition.
  public static let error: UInt32 = CEPOLL_ERR
  /// Hang-up.
  public static let hangUp: UInt32 = CEPOLL_HUP
  /// Wake only one of several epoll instances waiting on the same descriptor (listeners).
  public static let exclusive: UInt32 = CEPOLL_EXCLUSIVE
}
