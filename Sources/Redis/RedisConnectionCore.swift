import Sockets
import Synchronization

/// One TCP connection's state, confined to the loop thread: the descriptor, the bytes waiting to be
/// written, the reply parser, and the callers waiting for replies in the order their commands were sent.
final class RedisConnectionCore: EventHandler, @unchecked Sendable {
  // @unchecked Sendable: every mutable field is touched only on the loop thread (through
  // `io.execute`, the loop's events or its tick); other threads read only the atomic `isOpen`.

  /// Callers waiting for replies: one pipeline of `expected` commands each.
  private struct Pending {
    let slot: ReplySlot<[RESPValue]>
    let expected: Int
    var values: [RESPValue]
    let deadline: Int
    let timeoutKind: RedisTimeoutKind
  }

  private enum State {
    case connecting(ReplySlot<Void>, deadline: Int)
    case open
    case closed(RedisError)
  }

  let io: RedisIOLoop
  private let fd: Int32
  private var state: State
  private var parser: RESPParser
  private var output: [UInt8] = []
  private var outputOffset = 0
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
  private let scratch: UnsafeMutableRawBufferPointer

  /// Wraps a socket whose nonblocking connect has started; `connected` finishes when it completes.
  init(io: RedisIOLoop, fd: Int32, limits: RESPParserLimits, connected: ReplySlot<Void>, deadline: Int) {
    self.io = io
    self.fd = fd
    self.parser = RESPParser(limits: limits)
    self.state = .connecting(connected, deadline: deadline)
    // Freed in deinit; only this object reads into it, on the loop thread.
    self.scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readSize, alignment: 16)
  }

  deinit { scratch.deallocate() }

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

  /// Queues an encoded pipeline of `count` commands whose replies `slot` receives; loop thread only.
  func enqueue(
    _ bytes: [UInt8], count: Int, slot: ReplySlot<[RESPValue]>, deadline: Int, kind: RedisTimeoutKind
  ) {
    switch state {
    case .closed(let error):
      slot.finish(.failure(error))
      return
    case .connecting:
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
    if case .connecting(let slot, _) = state {
      guard events & (EpollEvents.output | EpollEvents.error | EpollEvents.hangUp) != 0 else { return }
      let code = SocketAddress.pendingError(fd)
      guard code == 0 else {
        fail(.connectionLost(SocketError("connect", code: code).description))
        return
      }
      state = .open
      setInterest(EpollEvents.input | EpollEvents.readHangUp)
      slot.finish(.success(()))
      return
    }
    if events & (EpollEvents.input | EpollEvents.readHangUp | EpollEvents.hangUp | EpollEvents.error) != 0 {
      readAvailable()
    }
    if events & EpollEvents.output != 0 { flush() }
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

  /// Closes the connection and fails every waiting caller with `error`; loop thread only.
  func fail(_ error: RedisError) {
    if case .closed = state { return }
    if case .connecting(let slot, _) = state { slot.finish(.failure(error)) }
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

  private func flush() {
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
        setInterest(EpollEvents.input | EpollEvents.readHangUp | EpollEvents.output)
        return
      case .done(let written):
        outputOffset += written
      }
    }
    // Everything is written: a buffer grown for a large value is released, a small one kept.
    if output.capacity > 1 << 20 { output = [] } else { output.removeAll(keepingCapacity: true) }
    outputOffset = 0
    setInterest(EpollEvents.input | EpollEvents.readHangUp)
  }

  private func readAvailable() {
    for _ in 0..<Self.readsPerEvent {
      guard case .open = state else { return }
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
        fail(.connectionLost("closed by the server"))
        return
      case .done(let count):
        parser.append(UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
        deliverParsed()
      }
    }
  }

  private func deliverParsed() {
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

  private func setInterest(_ events: UInt32) {
    guard events != interest else { return }
    interest = events
    io.loop.modify(fd: fd, events: events)
  }
}
