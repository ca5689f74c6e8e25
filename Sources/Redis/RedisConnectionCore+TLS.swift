import Clocks
import Sockets
import TLS

// The TLS paths of a connection: the handshake, sealing queued commands into records, and opening
// records into the parser. Loop thread only, like the rest of the core.
extension RedisConnectionCore {
  /// Runs the handshake as far as the bytes read so far allow; once it is done the connection is
  /// open and its caller resumes.
  func advanceHandshake() {
    guard let tls, case .handshaking(let slot, _) = state else { return }
    let wait: TLSWait?
    do {
      wait = try tls.session.handshake()
    } catch {
      fail(.tls(error))
      return
    }
    guard sendCiphertext(tls) else { return }
    if wait == nil {
      let nanoseconds = io.time.monotonicNanoseconds() - tls.handshakeStarted
      telemetry?.handshook(after: Double(max(0, nanoseconds)) / 1e9)
      state = .open
      slot.finish(.success(()))
    }
    updateInterest()
  }

  /// Sends what the TLS layer holds; false when the socket failed (the connection is then closed).
  func sendCiphertext(_ tls: RedisTLSLayer) -> Bool {
    do {
      _ = try tls.send(to: fd)
      return true
    } catch {
      fail(.connectionLost(error.description))
      return false
    }
  }

  /// Seals queued commands and sends the records until the socket would block or the session waits.
  func flushSealed(_ tls: RedisTLSLayer) {
    while true {
      let sent: Bool
      do {
        sent = try tls.send(to: fd)
      } catch {
        fail(.connectionLost(error.description))
        return
      }
      guard sent else {
        updateInterest()
        return
      }
      if outputOffset == output.count { break }
      let offset = outputOffset
      let end = min(output.count, offset + Self.sealSize)
      let attempt: Result<TLSWrite, TLSError> = output.withUnsafeBytes { raw in
        // The buffer is only read during the call; a retry after a wait passes the same bytes
        // again (the session accepts a buffer that moved).
        Result { () throws(TLSError) in
          try tls.session.write(UnsafeRawBufferPointer(rebasing: raw[offset..<end]))
        }
      }
      let result: TLSWrite
      switch attempt {
      case .success(let value): result = value
      case .failure(let error):
        fail(.tls(error))
        return
      }
      switch result {
      case .accepted(let count):
        outputOffset += count
      case .wait(.input):
        tls.writeWaitsForInput = true
        updateInterest()
        return
      case .wait(.output):
        continue
      }
    }
    outputWritten()
  }

  /// Moves the handshake on, then hands every complete record's plaintext to the parser; output the
  /// reading produced (a TLS 1.3 key update's answer) is sent, and a write that waited for input
  /// goes on.
  func decryptAvailable(_ tls: RedisTLSLayer) {
    if case .handshaking = state { advanceHandshake() }
    guard let plaintext else { return }
    while case .open = state {
      let result: TLSRead
      do {
        result = try tls.session.read(into: plaintext)
      } catch {
        fail(.tls(error))
        return
      }
      switch result {
      case .bytes(let count):
        parser.append(UnsafeRawBufferPointer(rebasing: plaintext[0..<count]))
        deliverParsed()
      case .wait(.input):
        if tls.writeWaitsForInput || tls.hasPendingOutput {
          tls.writeWaitsForInput = false
          flushSealed(tls)
        }
        return
      case .wait(.output):
        readWaitsForOutput = true
        guard sendCiphertext(tls) else { return }
        updateInterest()
        return
      case .closed:
        fail(.connectionLost("closed by the server (TLS close_notify)"))
        return
      }
    }
  }
}
