import Glibc

/// SIGINT and SIGTERM for a server's `main`, without a window in which one is lost or kills the
/// process undrained.
///
/// `install()` runs first in `main`. From then on, whichever thread a signal lands on, a handler
/// writes its number into a pipe, and a thread of its own reads the pipe into the returned stream,
/// which keeps the first signal until `main` waits for it (later ones, until then, are dropped).
/// Before, the signals were ignored (`SIG_IGN`) until a dispatch source took them over, which it
/// registers later, on a dispatch thread: a SIGTERM sent just after the "listening" line was lost so
/// (2 of 60 tries at load 4 here), or, sent before `SIG_IGN`, killed the process without a drain
/// (11 of 60). Blocking the signals instead does not hold here: dispatch starts threads that leave
/// SIGTERM unblocked.
///
/// ```swift
/// let signals = TerminationSignals.installOrExit("my-server")  // main.swift's first statement
/// …                                                // build, listen, print "listening"
/// for await _ in signals { break }
/// await server.shutdown()
/// ```
public enum TerminationSignals {
  /// The signals that ask a server to drain and exit.
  private static let numbers: [Int32] = [SIGINT, SIGTERM]

  /// Installs the handlers and starts the thread that reads what they write. Throws if the pipe or
  /// the thread cannot be made; call it once.
  public static func install() throws(SocketError) -> AsyncStream<Int32> {
    var ends: [Int32] = [-1, -1]
    _ = try Syscall.check("pipe") { pipe(&ends) }
    let (readEnd, sendEnd) = (ends[0], ends[1])
    do {
      // Close-on-exec: a process this one starts never holds the pipe.
      _ = try Syscall.check("fcntl") { fcntl(readEnd, F_SETFD, FD_CLOEXEC) }
      _ = try Syscall.check("fcntl") { fcntl(sendEnd, F_SETFD, FD_CLOEXEC) }
      // A handler never blocks: with the pipe full (a storm of signals), the number is dropped, and
      // the ones already in the pipe say the same.
      _ = try Syscall.check("fcntl") { fcntl(sendEnd, F_SETFL, O_NONBLOCK) }
    } catch {
      close(readEnd)
      close(sendEnd)
      throw error
    }
    writeEnd = sendEnd
    // Only the first signal matters to a caller: keeping one bounds what a storm of signals, sent
    // before `main` waits, can hold in memory.
    let (stream, continuation) = AsyncStream<Int32>.makeStream(bufferingPolicy: .bufferingOldest(1))
    // Reads until the stream ends (`main` stopped waiting) or the pipe fails, which it cannot while
    // this process holds both ends.
    try DetachedThread.start {
      var number: UInt8 = 0
      while (try? Syscall.check("read", { read(readEnd, &number, 1) })) == 1 {
        if case .terminated = continuation.yield(Int32(number)) { return }
      }
    }
    for number in numbers {
      // Async-signal-safe: one raw write(2) of one byte (not `Syscall`, which may throw and allocate)
      // to a descriptor set before the handler exists, and the interrupted thread's errno given back.
      signal(number) { received in
        let saved = errno
        var byte = UInt8(truncatingIfNeeded: received)
        _ = write(TerminationSignals.writeEnd, &byte, 1)
        errno = saved
      }
    }
    return stream
  }

  /// `install()`, or, if it fails, "`program`: cannot take signals: …" on standard error and exit 1:
  /// a server that cannot be stopped cleanly does not start.
  public static func installOrExit(_ program: String) -> AsyncStream<Int32> {
    do {
      return try install()
    } catch {
      let line = Array("\(program): cannot take signals: \(error)\n".utf8)
      _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }  // reads only the array's bytes
      exit(1)
    }
  }

  /// The pipe's write end, set once in `install()` before any handler that reads it is installed
  /// (a happens-before by program order on that thread, and `signal` is a system call), never again.
  nonisolated(unsafe) private static var writeEnd: Int32 = -1
}
