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
  var core: ServerCore { owner.core }
  var phase = Phase.reading
  var input: [UInt8] = []
  var inputStart = 0
  var parser: HTTPRequestParser
  var pending: [[UInt8]] = []
  var pendingOffset = 0
  var interest = Connection.readInterest
  var task: Task<Void, Never>?
  var flushWaiter: CheckedContinuation<Bool, Never>?
  var responseComplete = false
  var keepAlive = true
  var deadline = 0
  var deadlineKind = Deadline.header
  var requestStart = ContinuousClock.now

  init(fd: Int32, peer: String, owner: ServerLoop) {
    self.fd = fd
    self.peer = peer
    self.owner = owner
    self.parser = HTTPRequestParser(limits: owner.core.configuration.parserLimits)
  }

  func started(now: Int) { setDeadline(.header, now: now) }

  func setDeadline(_ kind: Deadline, now: Int = EventLoop.monotonicMilliseconds()) {
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

  func readAvailable() {
    if phase == .handling && input.count > pipelineLimit {
      // Reading is paused, so only a hang-up gets here: the peer sent too much and left.
      abort()
      return
    }
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

  var pipelineLimit: Int {
    core.configuration.maxRequestLineBytes + core.configuration.maxHeaderBytes
      + core.configuration.maxBodyBytes
  }

  func setInterest(_ mask: UInt32) {
    guard mask != interest, phase != .closed else { return }
    interest = mask
    owner.loop.modify(fd: fd, events: mask)
  }

  /// Parses and dispatches the next request, if the buffer holds one.
  func process() {
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

  func dispatch(_ request: HTTPRequest) {
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

  func run(_ request: HTTPRequest, _ context: RequestContext) async {
    var response: HTTPResponse
    do {
      response = try await core.handler(request, context)
    } catch let error as HTTPError {
      response = error.response
    } catch {
      if !Task.isCancelled && phase != .closed {
        // One line on stderr, beside the access log; stdout is left to the program.
        let line = Array("\(context.requestID) handler error: \(error)\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }  // reads only the array's own bytes
      }
      response = HTTPResponse.text(.internalServerError, "internal server error")
    }
    guard phase == .handling else { return }
    await send(response, for: request, id: context.requestID)
  }

  /// Writes a response; streamed bodies are written chunk by chunk, each flushed before the next.
  func send(_ response: HTTPResponse, for request: HTTPRequest, id: String) async {
    if owner.draining { keepAlive = false }
    let bodyAllowed = request.method != .head && !response.status.forbidsBody
    // HTTP/1.0 defaults to close, so keep-alive must be confirmed; HTTP/1.1 only announces close.
    var connectionField: Bool? = request.version == .http10 ? keepAlive : (keepAlive ? nil : false)
    var head: [UInt8] = []
    switch response.body {
    case .bytes(let body):
      head.reserveCapacity(256 + (bodyAllowed && body.count <= Self.coalesceLimit ? body.count : 0))
      HTTPResponseSerializer.writeHead(
        status: response.status, headers: response.headers, serializedHeaders: response.serializedHeaders,
        framing: .length(body.count),
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
      let framing: HTTPResponseSerializer.Framing =
        response.status.forbidsBody ? .length(0) : (chunked ? .chunked : .untilClose)
      HTTPResponseSerializer.writeHead(
        status: response.status, headers: response.headers, serializedHeaders: response.serializedHeaders,
        framing: framing,
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

  func complete(_ request: HTTPRequest, id: String, status: Int, bytes: Int) {
    if core.logging {
      // Logged when the last byte is queued, so a reader of the log never lags the client.
      owner.record(
        AccessLogEntry(
          requestID: id, method: request.method.rawValue, target: request.target, status: status,
          bytes: bytes, duration: ContinuousClock.now - requestStart))
    }
    responseComplete = true
    flush()
  }

  /// Waits until everything queued has been written; false if the connection closed meanwhile.
  func flushed() async -> Bool {
    flush()
    if phase == .closed { return false }
    if pending.isEmpty { return true }
    return await withCheckedContinuation { flushWaiter = $0 }
  }

  /// Answers a request that could not be parsed, then closes.
  func fail(_ error: HTTPError) {
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
    if core.logging {
      owner.record(
        AccessLogEntry(
          requestID: core.nextRequestID(), method: "-", target: "-", status: error.status.code,
          bytes: body.count, duration: .zero))
    }
    responseComplete = true
    flush()
  }
}
