import Clocks
import HTTP
import Sockets
import Synchronization

/// State shared by every loop of one server: configuration, handler and counters.
final class ServerCore: Sendable {
  let configuration: HTTPServerConfiguration
  let handler: HTTPHandler
  let log: (@Sendable (AccessLogEntry) -> Void)?
  let accessLog: AccessLogWriter?
  /// Whether requests make access-log entries at all.
  let logging: Bool
  let listenFD: Int32
  let openConnections = Atomic<Int>(0)
  /// Set as shutdown begins, before the listener stops: a response written from then on ends its
  /// connection, also on a loop that has not yet taken its own drain in (it hops there later).
  private let shuttingDown = Atomic<Bool>(false)
  let requestCounter = Atomic<UInt64>(0)
  let idPrefix: String
  let serverBytes: [UInt8]
  let timeouts: ConnectionStateMachine.Timeouts
  /// Bytes that may wait behind a running request: one largest request.
  let pipelineLimit: Int
  let drainTimeoutMS: Int
  /// The configuration's clock, read per request (a closure call, no syscall beyond the vDSO).
  let time: TimeSource
  /// Sent to connections past the cap.
  let busyResponse: [UInt8] = Array(
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 20\r\nConnection: close\r\n\r\ntoo many connections\n"
      .utf8)

  init(
    configuration: HTTPServerConfiguration, handler: @escaping HTTPHandler,
    log: (@Sendable (AccessLogEntry) -> Void)?, accessLog: AccessLogWriter?, listenFD: Int32
  ) {
    self.configuration = configuration
    self.handler = handler
    self.log = log
    self.accessLog = accessLog
    self.logging = log != nil || accessLog != nil
    self.listenFD = listenFD
    self.idPrefix = String(UInt32.random(in: 0x1000...0xFFFF), radix: 16)
    self.serverBytes = Array(configuration.serverName.utf8.filter { $0 >= 32 && $0 < 127 })
    timeouts = ConnectionStateMachine.Timeouts(
      header: max(1, configuration.headerTimeout.wholeMilliseconds),
      idle: max(1, configuration.idleTimeout.wholeMilliseconds),
      write: max(1, configuration.writeTimeout.wholeMilliseconds))
    let limits = configuration.limits
    pipelineLimit = limits.maxRequestLineBytes.saturatingAdd(limits.maxHeaderBytes)
      .saturatingAdd(limits.maxBodyBytes)
    drainTimeoutMS = max(1, configuration.drainTimeout.wholeMilliseconds)
    time = configuration.time
  }

  /// Whether shutdown has begun (only the flag is read: nothing else is published with it).
  var isShuttingDown: Bool { shuttingDown.load(ordering: .relaxed) }

  /// Marks shutdown as begun; `HTTPServer.shutdown` calls it before the listener stops.
  func beginShutdown() { shuttingDown.store(true, ordering: .relaxed) }

  func nextRequestID() -> String {
    let n = requestCounter.add(1, ordering: .relaxed).newValue
    return idPrefix + "-" + String(n, radix: 36)
  }
}

extension Int {
  /// `self + other`, clamped at the bounds instead of trapping.
  fileprivate func saturatingAdd(_ other: Int) -> Int {
    let (sum, overflow) = addingReportingOverflow(other)
    return overflow ? (other > 0 ? Int.max : Int.min) : sum
  }
}
