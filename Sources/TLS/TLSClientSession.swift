import COpenSSL

/// What a session call is waiting for when it cannot go on yet.
public enum TLSWait: Sendable, Equatable {
  /// More ciphertext from the peer (`SSL_ERROR_WANT_READ`): feed what the socket reads, then call again.
  case input
  /// Room to send (`SSL_ERROR_WANT_WRITE`): send the pending output, then call again once the
  /// socket is writable.
  case output
}

/// The outcome of `TLSClientSession.read(into:)`.
public enum TLSRead: Sendable, Equatable {
  /// This many plaintext bytes were written into the buffer.
  case bytes(Int)
  /// Nothing to read until the call can go on.
  case wait(TLSWait)
  /// The peer ended the session (`close_notify`).
  case closed
}

/// The outcome of `TLSClientSession.write(_:)`.
public enum TLSWrite: Sendable, Equatable {
  /// This many plaintext bytes were taken (and their records queued as output).
  case accepted(Int)
  /// Nothing was taken; call again with the same bytes once the wait is over.
  case wait(TLSWait)
}

/// One TLS client session as a pure engine over bytes: OpenSSL reads the peer's ciphertext from
/// memory and writes its own into memory, and the owner moves both between the session and its
/// socket. The session does no I/O, so it never blocks, never raises SIGPIPE, and its owner keeps
/// its own timeouts and readiness events.
///
/// The server's certificate must chain to the context's trust and match `serverName` (an IP
/// literal is checked against the certificate's IP addresses; a name is also sent as SNI).
///
/// ```swift
/// let session = try TLSClientSession(context: context, serverName: "127.0.0.1")
/// _ = try session.handshake()          // .wait(.input) until the server's flight has been fed
/// socket.send(session.takeOutput())    // the ClientHello
/// session.feed(bytesFromTheSocket)
/// ```
///
/// Not thread-safe: one owner (a connection on its loop thread) calls it.
public final class TLSClientSession {
  private let ssl: OpaquePointer
  private let input: OpaquePointer
  private let output: OpaquePointer

  /// A session of `context` for the server `serverName` (a DNS name or an IP address).
  public init(context: TLSClientContext, serverName: String) throws(TLSError) {
    OpenSSLErrors.clear()
    guard let ssl = SSL_new(context.context) else {
      throw TLSError(.configuration, OpenSSLErrors.take(or: "cannot create a TLS session"))
    }
    guard let input = copenssl_memory_bio(), let output = copenssl_memory_bio() else {
      SSL_free(ssl)
      throw TLSError(.configuration, "cannot allocate TLS buffers")
    }
    // The session owns both BIOs from here and frees them with itself.
    SSL_set_bio(ssl, input, output)
    self.ssl = ssl
    self.input = input
    self.output = output
    SSL_set_connect_state(ssl)
    SSL_set_hostflags(ssl, COPENSSL_NO_PARTIAL_WILDCARDS)
    let checked: Int32
    if Self.isIPAddress(serverName) {
      // RFC 6066: SNI carries names only; an address is matched against the certificate's IP SANs.
      checked = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName)
    } else {
      checked = SSL_set1_host(ssl, serverName) & copenssl_set_server_name(ssl, serverName)
    }
    guard checked == 1 else {
      throw TLSError(.configuration, "cannot check the server name \(serverName)")
    }
  }

  deinit { SSL_free(ssl) }

  /// Takes ciphertext the socket read from the peer.
  public func feed(_ ciphertext: UnsafeRawBufferPointer) {
    guard let base = ciphertext.baseAddress, !ciphertext.isEmpty else { return }
    // A memory BIO grows to take everything; the pointer is only read during the call.
    var offset = 0
    while offset < ciphertext.count {
      let chunk = Int32(clamping: ciphertext.count - offset)
      let written = BIO_write(input, base + offset, chunk)
      if written <= 0 { return }
      offset += Int(written)
    }
  }

  /// Ciphertext waiting to be sent to the peer, in bytes.
  public var pendingOutput: Int { Int(copenssl_bio_pending(output)) }

  /// Moves up to `buffer.count` bytes of the ciphertext waiting to be sent into `buffer`; returns how
  /// many (0 when none waits).
  public func readOutput(into buffer: UnsafeMutableRawBufferPointer) -> Int {
    guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
    // Writes at most `buffer.count` bytes into the caller's buffer.
    return max(0, Int(BIO_read(output, base, Int32(clamping: buffer.count))))
  }

  /// Appends the ciphertext waiting to be sent to `buffer` and forgets it.
  public func takeOutput(into buffer: inout [UInt8]) {
    let count = pendingOutput
    guard count > 0 else { return }
    buffer += [UInt8](unsafeUninitializedCapacity: count) { room, initialized in
      initialized = readOutput(into: UnsafeMutableRawBufferPointer(room))
    }
  }

  /// Runs the handshake as far as the bytes fed so far allow: true once it is complete (the
  /// server's certificate verified), or throws why it failed. Send `takeOutput` after each call.
  public func handshake() throws(TLSError) -> TLSWait? {
    OpenSSLErrors.clear()
    let rc = SSL_do_handshake(ssl)
    if rc == 1 { return nil }
    return try wait(
      after: rc,
      closed: { () throws(TLSError) in
        throw TLSError(.protocolFailure, "the server ended the handshake")
      })
  }

  /// Decrypts into `buffer` what the fed ciphertext holds.
  public func read(into buffer: UnsafeMutableRawBufferPointer) throws(TLSError) -> TLSRead {
    guard let base = buffer.baseAddress, !buffer.isEmpty else { return .bytes(0) }
    OpenSSLErrors.clear()
    var count = 0
    let rc = SSL_read_ex(ssl, base, buffer.count, &count)
    if rc == 1 { return .bytes(count) }
    var ended = false
    let wait = try wait(after: rc, closed: { ended = true })
    return ended ? .closed : .wait(wait)
  }

  /// Encrypts a prefix of `plaintext` into output records.
  public func write(_ plaintext: UnsafeRawBufferPointer) throws(TLSError) -> TLSWrite {
    guard let base = plaintext.baseAddress, !plaintext.isEmpty else { return .accepted(0) }
    OpenSSLErrors.clear()
    var count = 0
    let rc = SSL_write_ex(ssl, base, plaintext.count, &count)
    if rc == 1 { return .accepted(count) }
    return .wait(
      try wait(
        after: rc,
        closed: { () throws(TLSError) in
          throw TLSError(.protocolFailure, "the server ended the session")
        }))
  }

  /// Queues `close_notify` as output, so the peer sees an orderly end rather than a cut.
  public func close() {
    OpenSSLErrors.clear()
    _ = SSL_shutdown(ssl)
    OpenSSLErrors.clear()
  }

  /// Classifies a failed call: what it waits for, `closed` for a clean end, or a thrown error.
  private func wait(after rc: Int32, closed: () throws(TLSError) -> Void) throws(TLSError) -> TLSWait {
    let code = SSL_get_error(ssl, rc)
    switch code {
    case COPENSSL_ERROR_WANT_READ:
      return .input
    case COPENSSL_ERROR_WANT_WRITE:
      return .output
    case COPENSSL_ERROR_ZERO_RETURN:
      try closed()
      return .input
    default:
      let verdict = SSL_get_verify_result(ssl)
      if verdict != COPENSSL_X509_V_OK {
        OpenSSLErrors.clear()
        let text = X509_verify_cert_error_string(verdict).map { String(cString: $0) } ?? "code \(verdict)"
        throw TLSError(.verification, text)
      }
      throw TLSError(.protocolFailure, OpenSSLErrors.take(or: "TLS error \(code)"))
    }
  }

  /// True for a dotted IPv4 or a colon-separated IPv6 literal.
  private static func isIPAddress(_ text: String) -> Bool {
    if text.contains(":") { return true }
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) }
  }
}
