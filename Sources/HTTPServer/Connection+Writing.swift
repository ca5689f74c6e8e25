import Glibc
import HTTP
import Sockets

// Writing, finishing and closing; on the owning loop's thread like the rest of `Connection`.
extension Connection {
  func flush() {
    while !pending.isEmpty && machine.isOpen {
      let result: IOResult<Int>
      do {
        result = try writePending()
      } catch {
        abort()
        return
      }
      switch result {
      case .wouldBlock:
        machine.writeWouldBlock(now: now)
        syncInterest()
        return
      case .done(let written):
        consume(written)
        machine.wrote(now: now)
      }
    }
    guard machine.isOpen else { return }
    let action = machine.flushed(draining: owner.draining, now: now)
    syncInterest()
    if let waiter = flushWaiter {
      flushWaiter = nil
      waiter.resume(returning: true)
    }
    switch action {
    case .none: break
    case .nextRequest:
      task = nil
      process()
    case .linger:
      // Half-closes and discards input briefly, so that unread request bytes do not turn the close
      // into a reset that would destroy the response before the client reads it.
      task = nil
      Socket.shutdownWrite(fd)
    }
  }

  func writePending() throws -> IOResult<Int> {
    if pending.count == 1 {
      return try pending[0].withUnsafeBytes { raw in
        try Socket.write(fd, UnsafeRawBufferPointer(rebasing: raw[pendingOffset...]))
      }
    }
    // Head and body go out together in one sendmsg; the pointers are only used inside the closures.
    return try pending[0].withUnsafeBytes { first in
      try pending[1].withUnsafeBytes { second in
        let head = UnsafeRawBufferPointer(rebasing: first[pendingOffset...])
        // iovec wants mutable pointers, but sendmsg only reads through them.
        var vectors = (
          iovec(iov_base: UnsafeMutableRawPointer(mutating: head.baseAddress), iov_len: head.count),
          iovec(iov_base: UnsafeMutableRawPointer(mutating: second.baseAddress), iov_len: second.count)
        )
        // A homogeneous tuple is laid out like an array, so it can be passed as two iovecs.
        return try withUnsafeBytes(of: &vectors) { raw in
          try Socket.writev(fd, raw.bindMemory(to: iovec.self))
        }
      }
    }
  }

  func consume(_ written: Int) {
    var left = written
    while left > 0, let first = pending.first {
      let remaining = first.count - pendingOffset
      if left >= remaining {
        left -= remaining
        pending.removeFirst()
        pendingOffset = 0
      } else {
        pendingOffset += left
        left = 0
      }
    }
  }

  // MARK: Ending

  /// The loop's periodic timer check.
  func timerFired(now: Int) {
    switch machine.timerFired(now: now) {
    case .none: break
    case .requestTimeout: fail(HTTPError(.requestTimeout, "request head not received in time"))
    case .close: abort()
    }
  }

  /// During shutdown: closes the connection now if no request is in progress. Bytes the kernel holds
  /// that the loop has not read yet are a request in progress too: a request sent just before the
  /// signal is answered (and the connection closed after it), not reset.
  func drainIfIdle() {
    let nothingUnread = inputStart == input.count && !Socket.hasUnreadInput(fd)
    if machine.idleForDrain(nothingUnread: nothingUnread) { abort() }
  }

  /// Closes at once, cancelling the handler task: its upstream call stops too, unless another request
  /// is waiting for the same call.
  func abort() {
    guard machine.close() else { return }
    task?.cancel()
    task = nil
    pending.removeAll()
    if let waiter = flushWaiter {
      flushWaiter = nil
      waiter.resume(returning: false)
    }
    owner.loop.unregister(fd: fd)
    Socket.close(fd)
    owner.removed(self)
  }
}
