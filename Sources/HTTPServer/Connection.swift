import Clocks
import Glibc
import HTTP
import Sockets

/// One client connection's I/O: it reads, parses, runs handlers and writes, and reports each event to
/// its `ConnectionStateMachine`, which decides what happens next.
final class Connection: EventHandler, @unchecked Sendable {
  // @unchecked Sendable: all state is confined to the owning loop's thread. Handler tasks are started
  // with that loop as their executor preference, so their code between awaits runs there too.
  static let readInterest = EpollEvents.input | EpollEvents.readHangUp
  /// Small bodies are copied behind the head so that both leave in one write.
  static let coalesceLimit = 16384
  static let continueBytes: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

  let fd: Int32
  let peer: String
  let owner: ServerLoop
  var core: ServerCore { owner.core }
  var machine: ConnectionStateMachine
  var input: [UInt8] = []
  var inputStart = 0
  var parser: HTTPRequestParser
  var pending: [[UInt8]] = []
  var pendingOffset = 0
  /// The epoll mask last registered, mirrored from the machine's wants.
  var interest = Connection.readInterest
  var task: Task<Void, Never>?
  var flushWaiter: CheckedContinuation<Bool, Never>?
  /// The monotonic reading when the current request was parsed.
  var requestStart: Duration = .zero

  init(fd: Int32, peer: String, owner: ServerLoop, now: Int) {
    self.fd = fd
    self.peer = peer
    self.owner = owner
    let core = owner.core
    self.parser = HTTPRequestParser(limits: core.configuration.limits)
    self.machine = ConnectionStateMachine(
      timeouts: core.timeouts, pipelineLimit: core.pipelineLimit, now: now)
  }

  /// The clock every event that may arm a timer is stamped with.
  @inline(__always) var now: Int { core.time.monotonicMilliseconds() }

  /// Registers the machine's wanted readiness with epoll when it changed.
  func syncInterest() {
    let mask =
      (machine.wantsInput ? Connection.readInterest : EpollEvents.readHangUp)
      | (machine.wantsOutput ? EpollEvents.output : 0)
    guard mask != interest, machine.isOpen else { return }
    interest = mask
    owner.loop.modify(fd: fd, events: mask)
  }

  // MARK: Events

  func handle(events: UInt32) {
    if events & (EpollEvents.error | EpollEvents.hangUp) != 0 && events & EpollEvents.input == 0 {
      abort()
      return
    }
    if events & EpollEvents.output != 0 {
      flush()
      if !machine.isOpen { return }
    }
    if events & (EpollEvents.input | EpollEvents.readHangUp) != 0 { readAvailable() }
  }

  func readAvailable() {
    guard machine.mayRead() else {
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
    let action = machine.received(buffered: input.count - inputStart + n)
    switch action {
    case .discard: return
    case .parse, .wait: break
    }
    if inputStart > 0 {
      input.removeFirst(inputStart)
      inputStart = 0
    }
    input.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
    switch action {
    case .parse: process()
    case .wait: syncInterest()  // may stop reading pipelined bytes until the current response is done
    case .discard: break
    }
  }

  /// Parses and dispatches the next request, if the buffer holds one.
  func process() {
    guard machine.shouldParse(bufferEmpty: inputStart == input.count, now: now) else { return }
    let result = input.withUnsafeBytes { raw in
      parser.parse(UnsafeRawBufferPointer(rebasing: raw[inputStart...]))
    }
    switch result {
    case .needMore:
      machine.needMore(now: now)
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
    machine.requestParsed(keepAlive: request.keepAlive)
    requestStart = core.time.monotonic()
    let context: RequestContext
    if core.configuration.trustedProxies.networks.isEmpty {
      context = RequestContext(requestID: core.nextRequestID(), remoteAddress: peer)
    } else {
      let client = core.configuration.trustedProxies.resolve(peer: peer, headers: request.headers)
      context = RequestContext(
        requestID: client.requestID ?? core.nextRequestID(), remoteAddress: peer,
        clientAddress: client.address,
        isSecure: client.isSecure)
    }
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
      if !Task.isCancelled && machine.isOpen {
        // One line on stderr, beside the access log; stdout is left to the program.
        let line = Array("\(context.requestID) handler error: \(error)\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }  // reads only the array's own bytes
      }
      response = HTTPResponse.text(.internalServerError, "internal server error")
    }
    guard machine.isHandling else { return }
    await send(response, for: request, id: context.requestID, client: context.clientAddress)
  }

  /// Writes a response; streamed bodies are written chunk by chunk, each flushed before the next.
  func send(_ response: HTTPResponse, for request: HTTPRequest, id: String, client: String) async {
    // The server-wide flag, not the loop's `draining`: a loop takes its drain in only later.
    if core.isShuttingDown { machine.closeAfterResponse() }
    let bodyAllowed = request.method != .head && !response.status.forbidsBody
    let keepAlive = machine.keepAlive
    // HTTP/1.0 defaults to close, so keep-alive must be confirmed; HTTP/1.1 only announces close.
    var connectionField: Bool? = request.version == .http10 ? keepAlive : (keepAlive ? nil : false)
    var head: [UInt8] = []
    switch response.body {
    case .bytes(let body):
      head.reserveCapacity(256 + (bodyAllowed && body.count <= Self.coalesceLimit ? body.count : 0))
      HTTPResponseSerializer.writeHead(
        status: response.status, headers: response.headers, serializedHeaders: response.serializedHeaders,
        framing: .length(body.count),
        keepAlive: connectionField, date: owner.dateBytes, server: core.serverBytes, requestID: id,
        into: &head)
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
      complete(
        request, id: id, client: client, status: response.status.code, bytes: bodyAllowed ? body.count : 0)
    case .stream(let stream):
      let chunked = request.version == .http11
      if !chunked && bodyAllowed {
        machine.closeAfterResponse()
        connectionField = false
      }
      let framing: HTTPResponseSerializer.Framing =
        response.status.forbidsBody ? .length(0) : (chunked ? .chunked : .untilClose)
      HTTPResponseSerializer.writeHead(
        status: response.status, headers: response.headers, serializedHeaders: response.serializedHeaders,
        framing: framing,
        keepAlive: connectionField, date: owner.dateBytes, server: core.serverBytes, requestID: id,
        into: &head)
      pending.append(head)
      var sent = 0
      if bodyAllowed {
        guard await flushed() else { return }
        do {
          for try await chunk in stream {
            guard machine.isHandling else { return }
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
        guard machine.isHandling else { return }
        if chunked { pending.append(HTTPResponseSerializer.lastChunk) }
      }
      complete(request, id: id, client: client, status: response.status.code, bytes: sent)
    }
  }

  func complete(_ request: HTTPRequest, id: String, client: String, status: Int, bytes: Int) {
    if core.logging {
      // Logged when the last byte is queued, so a reader of the log never lags the client.
      owner.record(
        AccessLogEntry(
          requestID: id, method: request.method.rawValue, target: request.target, status: status,
          bytes: bytes, duration: core.time.monotonic() - requestStart, client: client))
    }
    machine.responseQueued()
    flush()
  }

  /// Waits until everything queued has been written; false if the connection closed meanwhile.
  func flushed() async -> Bool {
    flush()
    if !machine.isOpen { return false }
    if pending.isEmpty { return true }
    return await withCheckedContinuation { flushWaiter = $0 }
  }

  /// Answers a request that could not be parsed, then closes.
  func fail(_ error: HTTPError) {
    machine.requestFailed()
    var head: [UInt8] = []
    let response = error.response
    guard case .bytes(let body) = response.body else { return }
    let id = core.nextRequestID()
    HTTPResponseSerializer.writeHead(
      status: response.status, headers: response.headers, framing: .length(body.count), keepAlive: false,
      date: owner.dateBytes, server: core.serverBytes, requestID: id, into: &head)
    head.append(contentsOf: body)
    pending.append(head)
    if core.logging {
      owner.record(
        AccessLogEntry(
          requestID: id, method: "-", target: "-", status: error.status.code,
          bytes: body.count, duration: .zero, client: peer))
    }
    machine.responseQueued()
    flush()
  }
}
