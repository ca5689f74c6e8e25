import Sockets
import TLS

/// A connection's TLS layer, confined to its loop thread: the session, and the ciphertext it made
/// that the socket has not taken yet. The core feeds it what the socket reads and asks it to seal
/// what the core wants to send; this type moves the ciphertext to the socket.
final class RedisTLSLayer {
  let session: TLSClientSession
  /// Monotonic nanoseconds when the handshake began (the TCP connection was up).
  var handshakeStarted: Int64 = 0
  /// True while `SSL_write` waits for the peer's input (`SSL_ERROR_WANT_READ` while writing):
  /// writing resumes after the next read rather than on writability.
  var writeWaitsForInput = false
  private var pending: [UInt8] = []
  private var pendingOffset = 0

  init(session: TLSClientSession) { self.session = session }

  /// True while ciphertext waits for the socket to become writable.
  var hasPendingOutput: Bool { pendingOffset < pending.count || session.pendingOutput > 0 }

  /// Sends what the session produced until the socket would block: true when everything went out,
  /// false when some waits (ask for writability). Throws the socket's error.
  func send(to fd: Int32) throws(SocketError) -> Bool {
    if session.pendingOutput > 0 {
      if pendingOffset == pending.count {
        pending.removeAll(keepingCapacity: pending.capacity <= 1 << 20)
        pendingOffset = 0
      }
      session.takeOutput(into: &pending)
    }
    while pendingOffset < pending.count {
      let offset = pendingOffset
      let attempt: Result<IOResult<Int>, SocketError> = pending.withUnsafeBytes { raw in
        // The array is only read during the call.
        Result { () throws(SocketError) in
          try Socket.write(fd, UnsafeRawBufferPointer(rebasing: raw[offset...]))
        }
      }
      switch try attempt.get() {
      case .wouldBlock: return false
      case .done(let written): pendingOffset += written
      }
    }
    return true
  }

  /// The peer's `close_notify` is answered, and ours queued and sent once without waiting: an
  /// orderly end when the socket has room, a plain close when it does not.
  func closeQuietly(fd: Int32) {
    session.close()
    _ = try? send(to: fd)
  }
}
