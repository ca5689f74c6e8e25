import CCurl
import HTTP
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The state of the loop thread: the multi handle, attached transfers, the wait queue and the
/// pool of idle easy handles. Every member is touched only by the loop thread.
final class MultiLoop {
  private let engine: CurlEngine
  // Opaque libcurl handles: only ever passed back to libcurl, and only on the loop thread.
  private let multi: UnsafeMutableRawPointer
  private let configuration: CurlClientConfiguration
  private var active: [UnsafeMutableRawPointer: Transfer] = [:]
  private var byTicket: [ObjectIdentifier: Transfer] = [:]
  private var waiting: [RequestTicket] = []
  private var waitingHead = 0
  private var idle: [UnsafeMutableRawPointer] = []
  private var commands: [CurlEngine.Command] = []

  init(engine: CurlEngine, multi: UnsafeMutableRawPointer) {
    self.engine = engine
    self.multi = multi
    configuration = engine.configuration
  }

  /// Runs until shutdown, then releases every handle.
  func run() {
    var running: Int32 = 0
    while true {
      let stop = engine.takeCommands(into: &commands)
      if stop { break }
      for command in commands {
        switch command {
        case .add(let ticket): add(ticket)
        case .cancel(let ticket): cancel(ticket)
        }
      }
      commands.removeAll(keepingCapacity: true)
      curl_multi_perform(multi, &running)
      collectFinished()
      promoteWaiting()
      // Returns early on socket activity, libcurl's own timers, or curl_multi_wakeup.
      if curl_multi_poll(multi, nil, 0, 1000, nil) != CURLM_OK {
        // Never spin if polling fails; commands are still picked up on the next pass.
        usleep(10_000)
      }
    }
    tearDown()
  }

  private func add(_ ticket: RequestTicket) {
    if ticket.isCancelled {
      ticket.finish(.failure(.cancelled))
    } else if active.count < configuration.maxConcurrentRequests && waitingHead == waiting.count {
      attach(ticket)
    } else {
      waiting.append(ticket)
    }
  }

  private func cancel(_ ticket: RequestTicket) {
    if let transfer = byTicket.removeValue(forKey: ObjectIdentifier(ticket)) {
      // Removing a transfer mid-way makes libcurl close its connection, so the server sees it.
      detach(transfer)
    }
    // A waiting ticket is skipped when its turn comes, because it is finished.
    ticket.finish(.failure(.cancelled))
  }

  private func attach(_ ticket: RequestTicket) {
    guard let easy = acquireHandle() else {
      ticket.finish(.failure(.other("curl_easy_init failed")))
      return
    }
    let limit = max(0, ticket.request.maxResponseBytes ?? configuration.maxResponseBytes)
    let transfer = Transfer(ticket: ticket, easy: easy, limit: limit)
    if let error = transfer.configure(configuration) {
      releaseHandle(easy)
      ticket.finish(.failure(error))
      return
    }
    let code = curl_multi_add_handle(multi, easy)
    guard code == CURLM_OK else {
      releaseHandle(easy)
      ticket.finish(.failure(.other(String(cString: curl_multi_strerror(code)))))
      return
    }
    active[easy] = transfer
    byTicket[ObjectIdentifier(ticket)] = transfer
    engine.activeTransfers.store(active.count, ordering: .relaxed)
  }

  /// Takes a transfer off the multi handle and recycles its easy handle.
  private func detach(_ transfer: Transfer) {
    active.removeValue(forKey: transfer.easy)
    curl_multi_remove_handle(multi, transfer.easy)
    releaseHandle(transfer.easy)
    engine.activeTransfers.store(active.count, ordering: .relaxed)
  }

  private func collectFinished() {
    var remaining: Int32 = 0
    while let message = curl_multi_info_read(multi, &remaining) {
      // Read everything needed before remove_handle, which invalidates the message.
      guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
      let code = ccurl_msg_result(message)
      guard let transfer = active[easy] else { continue }
      byTicket.removeValue(forKey: ObjectIdentifier(transfer.ticket))
      let result = outcome(of: transfer, code: code)
      detach(transfer)
      transfer.ticket.finish(result)
    }
  }

  private func outcome(of transfer: Transfer, code: CURLcode) -> Result<ClientResponse, ClientError> {
    guard code == CURLE_OK else {
      let detail = String(cString: transfer.errorBuffer)
      if let log = configuration.failureLog { log(Self.failureLine(transfer, code: code, detail: detail)) }
      return .failure(
        .from(code, detail: detail, limit: transfer.limit, exceededLimit: transfer.exceededLimit))
    }
    var status = 0
    ccurl_easy_getinfo_long(transfer.easy, CURLINFO_RESPONSE_CODE, &status)
    let phrase = transfer.reasonPhrase
    let httpStatus =
      phrase.isEmpty ? HTTPStatus(code: status) : HTTPStatus(code: status, reasonPhrase: phrase)
    let body = transfer.body
    transfer.body = []
    return .success(ClientResponse(status: httpStatus, headers: transfer.headers, body: body))
  }

  /// "upstream GET https://host/path failed (curl 60: SSL peer certificate…): detail" on one line.
  /// The query is left out: it is long and says nothing about why the connection failed.
  static func failureLine(_ transfer: Transfer, code: CURLcode, detail: String) -> String {
    let request = transfer.ticket.request
    let url = request.url.prefix { $0 != "?" && $0 != "#" }
    let summary = String(cString: curl_easy_strerror(code))
    var line = "upstream \(request.method.rawValue) \(url) failed (curl \(code.rawValue): \(summary))"
    if transfer.exceededLimit { line += ": body larger than \(transfer.limit) bytes" }
    if !detail.isEmpty { line += ": " + detail }
    return String(line.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
  }

  private func promoteWaiting() {
    while active.count < configuration.maxConcurrentRequests && waitingHead < waiting.count {
      let ticket = waiting[waitingHead]
      waitingHead += 1
      if ticket.isFinished { continue }
      if ticket.isCancelled { ticket.finish(.failure(.cancelled)) } else { attach(ticket) }
    }
    if waitingHead == waiting.count {
      waiting.removeAll(keepingCapacity: true)
      waitingHead = 0
    }
  }

  private func acquireHandle() -> UnsafeMutableRawPointer? {
    if let easy = idle.popLast() { return easy }
    guard let easy = curl_easy_init() else { return nil }
    engine.liveEasyHandles.add(1, ordering: .relaxed)
    return easy
  }

  /// Resets a handle for reuse (libcurl keeps its connections and caches) or frees it if the pool is full.
  private func releaseHandle(_ easy: UnsafeMutableRawPointer) {
    curl_easy_reset(easy)
    if idle.count < configuration.maxConcurrentRequests {
      idle.append(easy)
    } else {
      curl_easy_cleanup(easy)
      engine.liveEasyHandles.subtract(1, ordering: .relaxed)
    }
  }

  private func tearDown() {
    let leftovers = engine.markStopped()
    for transfer in Array(active.values) {
      detach(transfer)
      transfer.ticket.finish(.failure(.cancelled))
    }
    byTicket.removeAll()
    for ticket in waiting[waitingHead...] { ticket.finish(.failure(.cancelled)) }
    waiting.removeAll()
    for case .add(let ticket) in commands + leftovers { ticket.finish(.failure(.cancelled)) }
    for easy in idle {
      curl_easy_cleanup(easy)
      engine.liveEasyHandles.subtract(1, ordering: .relaxed)
    }
    idle.removeAll()
    curl_multi_cleanup(multi)
  }
}
