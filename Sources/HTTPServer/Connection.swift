import Glibc
import HTTP
import Sockets

/// One client connection: a state machine of reading a request, running its handler, writing the
/// response, then reading again (keep-alive) or closing.
final class Connection: EventHandler, @unchecked Sendable {
  // @unchecked Sendable: all state is confined to the owning loop's thread. Handler tasks are started
  // with that loop as their executor preference, so their code between awaits runs there too.
  enum Phase {
    case reading
    case handling
    case lingering
    case closed
  }

  enum Deadline {
    case header
    case idle
    case write
    case linger
  }

  static let readInterest = EpollEvents.input | EpollEvents.readHangUp
  /// Small bodies are copied behind the head so that both leave in one write.
  static let coalesceLimit = 16384
  static let continueBytes: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

  let fd: Int32
  let peer: String
  let owner: ServerLoop
  private var core: ServerCore { owner.core }
  private(set) var phase = Phase.reading
  private var input: [UInt8] = []
  private var inputStart = 0
  private var parser: HTTPRequestParser
  private var pending: [[UInt8]] = []
  private var pendingOffset = 0
  private var interest = Connection.readInterest
  private var task: Task<Void, Never>?
  private var flushWaiter: CheckedContinuation<Bool, Never>?
  private var responseComplete = false
  private var keepAlive = true
  private(set) var deadline = 0
  private var deadlineKind = Deadline.header
  private var logEntry: AccessLogEntry?
  private var requestStart = ContinuousClock.now

  init(fd: Int32, peer: String, owner: ServerLoop) {
    self.fd = fd
    self.peer = peer
    self.owner = owner
    self.parser = HTTPRequestParser(limits: owner.core.configuration.parserLimits)
  }

  func started(now: Int) { setDeadline(.header, now: now) }

  private func setDeadline(_ kind: Deadline, now: Int = EventLoop.monotonicMilliseconds()) {
    deadlineKind = kind
    switch kind {
    case .header: deadline = now + core.headerTimeoutMS
    case .idle: deadline = now + core.idleTimeoutMS
    case .write: deadline = now + core.writeTimeoutMS
    case .linger: deadline = now + 2000
    }
  }

  // MARK: Events

  func handle(events: UInt32) {
    if events & (EpollEvents.error | EpollEvents.hangUp) != 0 && events & EpollEvents.input == 0 {
      abort()
      return
    }
    if events & EpollEvents.output != 0 {
      flush()
      if phase == .closed { return }
    }
    if events & (EpollEvents.input | EpollEvents.readHangUp) != 0 { readAvailable() }
  }

  private func readAvailable() {
    let buffer = owner.readBuffer
    let result: IOResult<Int>
    do {
      result = try Socket.read(fd, into: buffer)
    } catch {
      abort()
      return
    }
    guard case .done(let n) = result else { return }
    if n == 0 {
      // The peer went away (or half-closed); either way nobody will read an answer.
      abort()
      return
    }
    if phase == .lingering { return }
    if inputStart > 0 {
      input.removeFirst(inputStart)
      inputStart = 0
    }
    input.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
    if phase == .reading {
      process()
    } else if phase == .handling && input.count > pipelineLimit {
      // Stop reading pipelined bytes until the current response is done; still notice hang-ups.
      setInterest(EpollEvents.readHangUp | (interest & EpollEvents.output))
    }
  }

  private var pipelineLimit: Int {
    core.configuration.maxRequestLineBytes + core.configuration.maxHeaderBytes
      + core.configuration.maxBodyBytes
  }

  private func setInterest(_ mask: UInt32) {
    guard mask != interest, phase != .closed else { return }
    interest = mask
    owner.loop.modify(fd: fd, events: mask)
  }

  /// Parses and dispatches the next request, if the buffer holds one.
  private func process() {
    guard phase == .reading else { return }
    if inputStart == input.count {
      if deadlineKind != .idle || deadline == 0 { setDeadline(.idle) }
      return
    }
    let result = input.withUnsafeBytes { raw in
      parser.parse(UnsafeRawBufferPointer(rebasing: raw[inputStart...]))
    }
    switch result {
    case .needMore:
      if deadlineKind != .header || deadline == 0 { setDeadline(.header) }
      if parser.expectsContinue {
        parser.continueSent()
        pending.append(Connection.continueBytes)
        flush()
      }
    case .failure(let error):
      fail(error)
    case .request(let request, let consumed):
      inputStart += consumed
      if inputStart == input.count {
        input.removeAll(keepingCapacity: true)
        inputStart = 0
      }
      dispatch(request)
    }
  }

  // MARK: Handling

  private func dispatch(_ request: HTTPRequest) {
    phase = .handling
    deadline = 0
    keepAlive = request.keepAlive
    requestStart = .now
    let context = RequestContext(requestID: core.nextRequestID(), remoteAddress: peer)
    owner.liveTasks += 1
    task = Task(executorPreference: owner.loop) { [self] in
      await run(request, context)
      owner.taskEnded()
    }
  }

  private func run(_ request: HTTPRequest, _ context: RequestContext) async {
    var response: HTTPResponse
    do {
      response = try await core.handler(request, context)
    } catch let error as HTTPError {
      response = error.response
    } catch {
      if !Task.isCancelled && phase != .closed {
        print("[\(context.requestID)] handler error: \(error)")
      }
      response = HTTPResponse.text(.internalServerError, "internal server error")
    }
    guard phase == .handling else { return }
    await send(response, for: request, id: context.requestID)
  }

  /// Writes a response; streamed bodies are written chunk by chunk, each flushed before the next.
  private func send(_ response: HTTPResponse, for request: HTTPRequest, id: String) async {
    if owner.draining { keepAlive = false }
    let bodyAllowed = request.method != .head && !response.status.forbidsBody
    // HTTP/1.0 defaults to close, so keep-alive must be confirmed; HTTP/1.1 only announces close.
    var connectionField: Bool? = request.version == .http10 ? keepAlive : (keepAlive ? nil : false)
    var head: [UInt8] = []
    switch response.body {
    case .bytes(let body):
      head.reserveCapacity(256 + (bodyAllowed && body.count <= Self.coalesceLimit ? body.count : 0))
      HTTPResponseSerializer.writeHead(
        status: response.status, headers: response.headers, framing: .length(body.count),
        keepAlive: connectionField, date: owner.dateBytes, server: core.serverBytes, into: &head)
      if bodyAllowed && !body.isEmpty {
        if body.count <= Self.coalesceLimit {
          head.append(contentsOf: body)
          pending.append(head)
        } else {
          pending.append(head)
          pending.append(body)
        }
      } else {
        pending.append(head)
      }
      complete(request, id: id, status: response.status.code, bytes: bodyAllowed ? body.count : 0)
    case .stream(let stream):
      let chunked = request.version == .http11
      if !chunked && bodyAllowed {
        keepAlive = false
        connectionField = false
      }
      HTTPResponseSerializer.writeHead(
        status: response.status, headers: response.headers, framing: chunked ? .chunked : .untilClose,
        keepAlive: connectionField, date: owner.dateBytes, server: core.serverBytes, into: &head)
      pending.append(head)
      var sent = 0
      if bodyAllowed {
        guard await flushed() else { return }
        do {
          for try await chunk in stream {
            guard phase == .handling else { return }
            if chunk.isEmpty { continue }
            sent += chunk.count
            if chunked {
              var frame: [UInt8] = []
              frame.reserveCapacity(chunk.count + 12)
              HTTPResponseSerializer.writeChunk(chunk, into: &frame)
              pending.append(frame)
            } else {
              pending.append(chunk)
            }
            guard await flushed() else { return }
          }
        } catch {
          // A failed stream cannot be reported in-band: cut the connection so the client sees truncation.
          abort()
          return
        }
        guard phase == .handling else { return }
        if chunked { pending.append(HTTPResponseSerializer.lastChunk) }
      }
      complete(request, id: id, status: response.status.code, bytes: sent)
    }
  }

  private func complete(_ request: HTTPRequest, id: String, status: Int, bytes: Int) {
    if core.log != nil {
      logEntry = AccessLogEntry(
        requestID: id, method: request.method.rawValue, path: String(request.path), status: status,
        bytes: bytes,
        duration: ContinuousClock.now - requestStart)
    }
    responseComplete = true
    flush()
  }

  /// Waits until everything queued has been written; false if the connection closed meanwhile.
  private func flushed() async -> Bool {
    flush()
    if phase == .closed { return false }
    if pending.isEmpty { return true }
    return await withCheckedContinuation { flushWaiter = $0 }
  }

  /// Answers a request that could not be parsed, then closes.
  private func fail(_ error: HTTPError) {
    phase = .handling
    keepAlive = false
    deadline = 0
    var head: [UInt8] = []
    let response = error.response
    guard case .bytes(let body) = response.body else { return }
    HTTPResponseSerializer.writeHead(
      status: response.status, headers: response.headers, framing: .length(body.count), keepAlive: false,
      date: owner.dateBytes, server: core.serverBytes, into: &head)
    head.append(contentsOf: body)
    pending.append(head)
    if core.log != nil {
      logEntry = AccessLogEntry(
        requestID: core.nextRequestID(), method: "-", path: "-", status: error.status.code, bytes: body.count,
        duration: .zero)
    }
    responseComplete = true
    flush()
  }

  // MARK: Writing

  private func flush() {
    while !pending.isEmpty && phase != .closed {
      let result: IOResult<Int>
      do {
        result = try writePending()
      } catch {
        abort()
        return
      }
      switch result {
      case .wouldBlock:
        if interest & EpollEvents.output == 0 {
          setInterest(interest | EpollEvents.output)
          setDeadline(.write)
        }
        return
      case .done(let written):
        consume(written)
        if deadlineKind == .write { setDeadline(.write) }
      }
    }
    guard phase != .closed else { return }
    if interest & EpollEvents.output != 0 { setInterest(interest & ~EpollEvents.output) }
    if deadlineKind == .write { deadline = 0 }
    if let waiter = flushWaiter {
      flushWaiter = nil
      waiter.resume(returning: true)
    }
    if responseComplete {
      responseComplete = false
      finishResponse()
    }
  }

  private func writePending() throws -> IOResult<Int> {
    if pending.count == 1 {
      return try pending[0].withUnsafeBytes { raw in
        try Socket.write(fd, UnsafeRawBufferPointer(rebasing: raw[pendingOffset...]))
      }
    }
    // Gather up to 8 buffers into one sendmsg; the arrays stay alive (and unmoved) in `pending` meanwhile.
    let count = min(pending.count, 8)
    var vectors = [iovec](repeating: iovec(), count: count)
    for i in 0..<count {
      pending[i].withUnsafeBytes { raw in
        let start = i == 0 ? pendingOffset : 0
        // The pointer outlives this closure only until sendmsg returns below, while `pending` is untouched.
        vectors[i] = iovec(
          iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress.map { $0 + start }),
          iov_len: raw.count - start)
      }
    }
    return try vectors.withUnsafeBufferPointer { v in try Socket.writev(fd, v) }
  }

  private func consume(_ written: Int) {
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

  private func finishResponse() {
    task = nil
    if let entry = logEntry {
      logEntry = nil
      core.log?(entry)
    }
    if !keepAlive || owner.draining {
      linger()
      return
    }
    phase = .reading
    setInterest(Connection.readInterest)
    deadline = 0
    process()
  }

  /// Half-closes and discards input briefly, so that unread request bytes do not turn the close into a
  /// reset that would destroy the response before the client reads it.
  private func linger() {
    phase = .lingering
    Socket.shutdownWrite(fd)
    setInterest(Connection.readInterest)
    setDeadline(.linger)
  }

  // MARK: Ending

  func timedOut() {
    switch (deadlineKind, phase) {
    case (.header, .reading):
      fail(HTTPError(.requestTimeout, "request head not received in time"))
    case (.idle, .reading), (.write, _), (.linger, _), (.header, _), (.idle, _):
      abort()
    }
  }

  /// During shutdown: closes the connection now if no request is in progress.
  func drainIfIdle() {
    if phase == .reading && inputStart == input.count { abort() }
  }

  /// Closes at once, cancelling the handler task (its upstream work stops).
  func abort() {
    guard phase != .closed else { return }
    phase = .closed
    deadline = 0
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
