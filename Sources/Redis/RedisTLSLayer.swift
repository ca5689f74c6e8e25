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
  /// Ciphertext taken from the session and not yet sent: `outgoing[sentUpTo..<filledUpTo]`.
  private let outgoing: UnsafeMutableRawBufferPointer
  private var sentUpTo = 0
  private var filledUpTo = 0

  init(session: TLSClientSession) {
    self.session = session
    // Freed in deinit; only this layer reads and writes it, on the loop thread.
    outgoing = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
  }

  deinit { outgoing.deallocate() }

  /// True while ciphertext waits for the socket to become writable.
  var hasPendingOutput: Bool { sentUpTo < filledUpTo || session.pendingOutput > 0 }

  /// Sends what the session produced until the socket would block: true when everything went out,
  /// false when some waits (ask for writability). Throws the socket's error.
  func send(to fd: Int32) throws(SocketError) -> Bool {
    while true {
      if sentUpTo == filledUpTo {
        filledUpTo = session.readOutput(into: outgoing)
        sentUpTo = 0
        if filledUpTo == 0 { return true }
      }
      let unsent = UnsafeRawBufferPointer(rebasing: outgoing[sentUpTo..<filledUpTo])
      switch try Socket.write(fd, unsent) {
      case .wouldBlock: return false
      case .done(let written): sentUpTo += written
      }
    }
  }

  /// The peer's `close_notify` is answered, and ours queued and sent once without waiting: an
  /// orderly end when the socket has room, a plain close when it does not.
  func closeQuietly(fd: Int32) {
    session.close()
    _ = try? send(to: fd)
  }
}
