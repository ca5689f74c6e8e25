import Clocks
import Glibc
import Sockets
import Synchronization
import TestSupport
import Testing

/// Records readiness events for a descriptor.
final class Recorder: EventHandler, @unchecked Sendable {
  // @unchecked Sendable: `handle` runs on the loop thread only; the tests read through the mutex.
  let events = Mutex<[UInt32]>([])
  /// Each event as it arrives, for the test to await.
  let arrivals: AsyncStream<UInt32>
  private let arrived: AsyncStream<UInt32>.Continuation
  init() { (arrivals, arrived) = AsyncStream<UInt32>.makeStream() }
  func handle(events mask: UInt32) {
    events.withLock { $0.append(mask) }
    arrived.yield(mask)
  }
}

/// Waits (in `poll`, up to `milliseconds`) until `fd` has something to read or accept.
func readable(_ fd: Int32, within milliseconds: Int32 = 10_000) -> Bool {
  var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
  return poll(&entry, 1, milliseconds) == 1
}

@Suite(.timeLimit(.minutes(3))) struct SocketsTests {
  @Test func syscallWrapperRetriesAndReportsWouldBlock() throws {
    var calls = 0
    let value = try Syscall.check("fake") { () -> Int32 in
      calls += 1
      if calls < 3 {
        errno = EINTR
        return -1
      }
      return 7
    }
    expectEqual(value, 7)
    expectEqual(calls, 3)
    guard
      case .wouldBlock = try Syscall.run(
        "fake",
        { () -> Int32 in
          errno = EAGAIN
          return -1
        })
    else {
      Issue.record("EAGAIN must be a value")
      return
    }
    #expect(throws: SocketError.self) {
      try Syscall.run("fake") { () -> Int32 in
        errno = EBADF
        return -1
      }
    }
  }

  @Test func listenAcceptReadWrite() throws {
    let (listener, port) = try Socket.listen(host: "127.0.0.1", port: 0)
    defer { Socket.close(listener) }
    expectTrue(port > 0)
    guard case .wouldBlock = try Socket.accept(listener) else {
      Issue.record("nothing to accept yet")
      return
    }
    let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { Socket.close(client) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = in_port_t(UInt16(port)).bigEndian
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    let rc = withUnsafePointer(to: &addr) { p in
      // sockaddr_in passed as sockaddr, as connect expects.
      p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    expectEqual(rc, 0)
    var accepted: (fd: Int32, peer: String)?
    if readable(listener), case .done(let a) = try Socket.accept(listener) { accepted = a }
    let server = try #require(accepted)
    defer { Socket.close(server.fd) }
    expectEqual(server.peer, "127.0.0.1")
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
    defer { buffer.deallocate() }
    guard case .wouldBlock = try Socket.read(server.fd, into: buffer) else {
      Issue.record("an empty nonblocking socket must report would-block")
      return
    }
    _ = "ping".withCString { send(client, $0, 4, 0) }
    expectTrue(readable(server.fd))
    guard case .done(let n) = try Socket.read(server.fd, into: buffer) else {
      Issue.record("data expected")
      return
    }
    expectEqual(n, 4)
    #expect(throws: SocketError.self) { try Socket.listen(host: "not-an-ip", port: 0) }
  }

  @Test func loopRunsTasksAndClosuresOnItsThread() async throws {
    let loop = try EventLoop(time: .system)
    let (exits, exit) = AsyncStream<Void>.makeStream()
    try loop.start(
      tick: {},
      onExit: {
        exit.yield()
        exit.finish()
      })
    let onLoop = await Task(executorPreference: loop) { () -> Bool in
      let first = loop.inLoop
      await Task.yield()  // suspends, and must resume on the loop
      return first && loop.inLoop
    }.value
    expectTrue(onLoop)
    expectTrue(!loop.inLoop)
    let ran = await withCheckedContinuation { c in loop.execute { c.resume(returning: loop.inLoop) } }
    expectTrue(ran)

    // Readiness of a registered descriptor reaches its handler.
    var fds: [Int32] = [0, 0]
    expectEqual(pipe(&fds), 0)
    let readEnd = fds[0]
    let recorder = Recorder()
    await withCheckedContinuation { c in
      loop.execute {
        try? loop.register(fd: readEnd, events: EpollEvents.input, handler: recorder)
        c.resume()
      }
    }
    _ = write(fds[1], "x", 1)
    for await _ in recorder.arrivals { break }
    expectEqual(recorder.events.withLock { $0.first.map { $0 & EpollEvents.input != 0 } }, true)
    loop.execute {
      loop.unregister(fd: readEnd)
      loop.stop()
    }
    var exited = false
    for await _ in exits { exited = true }
    expectTrue(exited)
    close(fds[0])
    close(fds[1])
  }
}

@Suite(.timeLimit(.minutes(3))) struct UnreadInputTests {
  /// What `Socket.hasUnreadInput` sees: nothing, bytes sent and not read, the same bytes once read, and
  /// the peer gone; the peek never takes a byte.
  @Test func aPeekSeesBytesNotReadYetWithoutTakingThem() throws {
    var fds: [Int32] = [0, 0]
    expectEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds), 0)
    defer { close(fds[0]) }
    expectTrue(!Socket.hasUnreadInput(fds[0]))
    _ = write(fds[1], "GET", 3)
    expectTrue(Socket.hasUnreadInput(fds[0]))
    expectTrue(Socket.hasUnreadInput(fds[0]), "a peek leaves the bytes where they were")
    var bytes = [UInt8](repeating: 0, count: 8)
    expectEqual(read(fds[0], &bytes, 8), 3)
    expectTrue(!Socket.hasUnreadInput(fds[0]))
    close(fds[1])
    expectTrue(!Socket.hasUnreadInput(fds[0]), "end of stream is not input")
  }
}

@Suite(.timeLimit(.minutes(3))) struct DetachedThreadTests {
  @Test func runsTheBodyOnAnotherThread() async throws {
    let caller = pthread_self()
    let other = try await withCheckedThrowingContinuation { (c: CheckedContinuation<Bool, any Error>) in
      do {
        try DetachedThread.start { c.resume(returning: pthread_equal(pthread_self(), caller) == 0) }
      } catch {
        c.resume(throwing: error)
      }
    }
    expectTrue(other)
  }
}
