import Clocks
import Sockets
import Synchronization
import TLS

/// One TCP connection's state, confined to the loop thread (its fields are internal only so that the
/// TLS paths in `RedisConnectionCore+TLS.swift` can use them): the descriptor, the bytes waiting to be
/// written, the reply parser, and the callers waiting for replies in the order their commands were
/// sent. With TLS, the bytes go through a `RedisTLSLayer` on their way to and from the socket, and
/// the connection is ready only once the handshake has verified the server.
final class RedisConnectionCore: EventHandler, @unchecked Sendable {
  // @unchecked Sendable: every mutable field is touched only on the loop thread (through
  // `io.execute`, the loop's events or its tick), except `abandon` on a core the loop never saw;
  // other threads read only the atomic `isOpen`.

  /// Callers waiting for replies: one pipeline of `expected` commands each.
  private struct Pending {
    let slot: ReplySlot<[RESPValue]>
    let expected: Int
    var values: [RESPValue]
    let deadline: Int
    let timeoutKind: RedisTimeoutKind
  }

  enum State {
    case connecting(ReplySlot<Void>, deadline: Int)
    case handshaking(ReplySlot<Void>, deadline: Int)
    case open
    case closed(RedisError)
  }

  let io: RedisIOLoop
  let fd: Int32
  var state: State
  var parser: RESPParser
  var output: [UInt8] = []
  var outputOffset = 0
  private var pending: [Pending] = []
  private var pendingHead = 0
  private var interest: UInt32 = 0
  /// Where pub/sub messages go once the connection has subscribed.
  private var onMessage: (@Sendable (RESPValue) -> Void)?
  private var onClose: (@Sendable (RedisError) -> Void)?
  /// False once closed; read from any thread so the pool can drop dead connections.
  let isOpen = Atomic<Bool>(true)
  /// Bytes read per `read` call.
  private static let readSize = 64 * 1024
  /// Reads per readiness event, so one busy connection cannot starve the others on the loop.
  private static let readsPerEvent = 16
  /// Plaintext bytes sealed per TLS write, so the ciphertext waiting for the socket stays bounded.
  static let sealSize = 64 * 1024
  private let scratch: UnsafeMutableRawBufferPointer
  let tls: RedisTLSLayer?
  /// Where decrypted bytes land before the parser takes them (TLS only).
  let plaintext: UnsafeMutableRawBufferPointer?
  /// True while `SSL_read` waits for the socket to take output (`SSL_ERROR_WANT_WRITE`).
  var readWaitsForOutput = false
  let telemetry: RedisTelemetry?

  /// Wraps a socket whose nonblocking connect has started; `connected` finishes when it completes
  /// (and, with `tls`, once the handshake has).
  init(
    io: RedisIOLoop, fd: Int32, limits: RESPParserLimits, tls: TLSClientSession?, telemetry: RedisTelemetry?,
    connected: ReplySlot<Void>, deadline: Int
  ) {
    self.io = io
    self.fd = fd
    self.parser = RESPParser(limits: limits)
    self.state = .connecting(connected, deadline: deadline)
    self.tls = tls.map(RedisTLSLayer.init)
    self.telemetry = telemetry
    // Both freed in deinit; only this object reads into them, on the loop thread.
    self.scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readSize, alignment: 16)
    self.plaintext =
      tls == nil ? nil : UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readSize, alignment: 16)
  }

  deinit {
    scratch.deallocate()
    plaintext?.deallocate()
  }

  /// Registers the socket with the loop; loop thread only.
  func start() {
    interest = EpollEvents.input | EpollEvents.output | EpollEvents.readHangUp
    do {
      try io.loop.register(fd: fd, events: interest, handler: self)
      io.track(self)
    } catch {
      Socket.close(fd)
      isOpen.store(false, ordering: .relaxed)
      if case .connecting(let slot, _) = state { slot.finish(.failure(.connectionLost(error.description))) }
      state = .closed(.connectionLost(error.description))
    }
  }

  /// Closes a socket that was never handed to the loop (it had shut down); any thread.
  func abandon(_ error: RedisError) {
    // Only a core the loop never saw gets here, so nothing else touches it meanwhile.
    guard case .connecting(let slot, _) = state else { return }
    state = .closed(error)
    isOpen.store(false, ordering: .relaxed)
    Socket.close(fd)
    slot.finish(.failure(error))
  }

  /// Queues an encoded pipeline of `count` commands whose replies `slot` receives; loop thread only.
  func enqueue(
    _ bytes: [UInt8], count: Int, slot: ReplySlot<[RESPValue]>, deadline: Int, kind: RedisTimeoutKind
  ) {
    switch state {
    case .closed(let error):
      slot.finish(.failure(error))
      return
    case .connecting, .handshaking:
      slot.finish(.failure(.connectionLost("not connected yet")))
      return
    case .open:
      break
    }
    if count == 0 {
      slot.finish(.success([]))
      return
    }
    pending.append(Pending(slot: slot, expected: count, values: [], deadline: deadline, timeoutKind: kind))
    if output.count == outputOffset {
      output = bytes
      outputOffset = 0
    } else {
      output.append(contentsOf: bytes)
    }
    flush()
  }

  func handle(events: UInt32) {
    let readable =
      events & (EpollEvents.input | EpollEvents.readHangUp | EpollEvents.hangUp | EpollEvents.error)
    switch state {
    case .connecting(let slot, let deadline):
      guard events & (EpollEvents.output | EpollEvents.error | EpollEvents.hangUp) != 0 else { return }
      let code = SocketAddress.pendingError(fd)
      guard code == 0 else {
        fail(.connectionLost(SocketError("connect", code: code).description))
        return
      }
      guard let tls else {
        state = .open
        updateInterest()
        slot.finish(.success(()))
        return
      }
      state = .handshaking(slot, deadline: deadline)
      tls.handshakeStarted = io.time.monotonicNanoseconds()
      advanceHandshake()
    case .handshaking:
      if readable != 0 { readAvailable() }
      if events & EpollEvents.output != 0 { flush() }
    case .open:
      if readable != 0 { readAvailable() }
      if events & EpollEvents.output != 0 { flush() }
    case .closed:
      break
    }
  }

  /// Sends pub/sub messages to `onMessage` instead of the reply queue; `onClose` runs once when the
  /// connection ends (at once if it already has). Loop thread only.
  func routeMessages(
    to onMessage: @escaping @Sendable (RESPValue) -> Void, onClose: @escaping @Sendable (RedisError) -> Void
  ) {
    if case .closed(let error) = state {
      onClose(error)
      return
    }
    self.onMessage = onMessage
    self.onClose = onClose
  }

  /// Fails anything whose deadline has passed, closing the connection; loop thread only.
  func checkDeadlines(now: Int) {
    switch state {
    case .connecting(_, let deadline):
      if now >= deadline { fail(.timeout(.connect)) }
    case .handshaking(_, let deadline):
      if now >= deadline { fail(.timeout(.handshake)) }
    case .open:
      var index = pendingHead
      while index < pending.count {
        if now >= pending[index].deadline {
          // Later replies would arrive behind the late one, so the connection cannot be reused.
          fail(.timeout(pending[index].timeoutKind))
          return
        }
        index += 1
      }
    case .closed:
      break
    }
  }

  /// Closes the connection at the client's wish (with TLS, after queueing `close_notify`) and fails
  /// every waiting caller with `error`; loop thread only.
  func close(_ error: RedisError) {
    if case .open = state, let tls { tls.closeQuietly(fd: fd) }
    fail(error)
  }

  /// Closes the connection and fails every waiting caller with `error`; loop thread only.
  func fail(_ error: RedisError) {
    if case .closed = state { return }
    // Counted before anyone waiting is resumed, so a caller that sees the error sees it counted.
    if case .tls = error { telemetry?.tlsFailed() }
    switch state {
    case .connecting(let slot, _), .handshaking(let slot, _): slot.finish(.failure(error))
    case .open, .closed: break
    }
    state = .closed(error)
    isOpen.store(false, ordering: .relaxed)
    io.loop.unregister(fd: fd)
    Socket.close(fd)
    io.untrack(self)
    let waiting = pending[pendingHead...]
    pending = []
    pendingHead = 0
    output = []
    outputOffset = 0
    for entry in waiting { entry.slot.finish(.failure(error)) }
    let closed = onClose
    onMessage = nil
    onClose = nil
    closed?(error)
  }

  /// Writes queued commands until the socket would block; with TLS, seals them into records first.
  private func flush() {
    if let tls {
      if readWaitsForOutput {
        readWaitsForOutput = false
        decryptAvailable(tls)
      }
      if case .handshaking = state {
        guard sendCiphertext(tls) else { return }
        updateInterest()
        return
      }
      guard case .open = state else { return }
      flushSealed(tls)
      return
    }
    while outputOffset < output.count {
      let fd = self.fd
      let offset = outputOffset
      let attempt: Result<IOResult<Int>, SocketError> = output.withUnsafeBytes { raw in
        // The buffer is only read during the call.
        Result { () throws(SocketError) in
          try Socket.write(fd, UnsafeRawBufferPointer(rebasing: raw[offset...]))
        }
      }
      let result: IOResult<Int>
      switch attempt {
      case .success(let value): result = value
      case .failure(let error):
        fail(.connectionLost(error.description))
        return
      }
      switch result {
      case .wouldBlock:
        updateInterest()
        return
      case .done(let written):
        outputOffset += written
      }
    }
    outputWritten()
  }

  /// Everything queued is on its way: a buffer grown for a large value is released, a small one kept.
  func outputWritten() {
    if output.capacity > 1 << 20 { output = [] } else { output.removeAll(keepingCapacity: true) }
    outputOffset = 0
    updateInterest()
  }

  private func readAvailable() {
    for _ in 0..<Self.readsPerEvent {
      switch state {
      case .open, .handshaking: break
      case .connecting, .closed: return
      }
      let result: IOResult<Int>
      do {
        result = try Socket.read(fd, into: scratch)
      } catch {
        fail(.connectionLost(error.description))
        return
      }
      switch result {
      case .wouldBlock:
        return
      case .done(0):
        if case .handshaking = state {
          fail(.tls(TLSError(.protocolFailure, "the server closed the connection during the handshake")))
        } else {
          fail(.connectionLost("closed by the server"))
        }
        return
      case .done(let count):
        let bytes = UnsafeRawBufferPointer(rebasing: scratch[0..<count])
        if let tls {
          tls.session.feed(bytes)
          decryptAvailable(tls)
        } else {
          parser.append(bytes)
          deliverParsed()
        }
      }
    }
  }

  func deliverParsed() {
    while true {
      let value: RESPValue?
      do {
        value = try parser.next()
      } catch {
        fail(.protocolViolation(error))
        return
      }
      guard let value else { return }
      if let onMessage, Self.isMessage(value) {
        onMessage(value)
        continue
      }
      guard pendingHead < pending.count else {
        fail(.protocolViolation(.unsolicitedReply))
        return
      }
      pending[pendingHead].values.append(value)
      if pending[pendingHead].values.count == pending[pendingHead].expected {
        let done = pending[pendingHead]
        // Drop the reference so the values are not kept alive by the queue.
        pending[pendingHead].values = []
        pendingHead += 1
        if pendingHead == pending.count {
          pending.removeAll(keepingCapacity: true)
          pendingHead = 0
        } else if pendingHead >= 64 && pendingHead * 2 >= pending.count {
          pending.removeSubrange(0..<pendingHead)
          pendingHead = 0
        }
        done.slot.finish(.success(done.values))
      }
    }
  }

  /// A RESP2 pub/sub delivery: `message channel payload` or `pmessage pattern channel payload`.
  private static func isMessage(_ value: RESPValue) -> Bool {
    guard case .array(let items) = value, let kind = items.first?.bytes else { return false }
    return (items.count == 3 && kind == Array("message".utf8))
      || (items.count == 4 && kind == Array("pmessage".utf8))
  }

  /// Asks for writability only while bytes wait for the socket (or a TLS read waits to write).
  func updateInterest() {
    let waiting: Bool
    if let tls {
      waiting = tls.hasPendingOutput || readWaitsForOutput
    } else {
      waiting = outputOffset < output.count
    }
    setInterest(EpollEvents.input | EpollEvents.readHangUp | (waiting ? EpollEvents.output : 0))
  }

  private func setInterest(_ events: UInt32) {
    guard events != interest else { return }
    interest = events
    io.loop.modify(fd: fd, events: events)
  }
}
