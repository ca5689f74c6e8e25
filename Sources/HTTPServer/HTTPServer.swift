import Glibc
import HTTP
import Sockets
import Synchronization

/// An HTTP/1.1 server: one listener, one or two epoll loop threads, async handlers run as tasks
/// on the loop that owns their connection. It leaves process-wide signal handling alone: every send
/// uses `MSG_NOSIGNAL`.
///
/// ```swift
/// var configuration = HTTPServerConfiguration()
/// configuration.port = 0  // any free port
/// let server = HTTPServer(configuration: configuration) { request, _ in .text(.ok, "hello") }
/// let port = try server.start()
/// // ... serve until asked to stop ...
/// await server.shutdown()
/// ```
public final class HTTPServer: Sendable {
  private struct State {
    var core: ServerCore?
    var loops: [ServerLoop] = []
    var shutDown = false
  }

  private let configuration: HTTPServerConfiguration
  private let handler: HTTPHandler
  private let log: (@Sendable (AccessLogEntry) -> Void)?
  private let accessLog: AccessLogWriter?
  private let state = Mutex(State())

  /// A server that answers every request with `handler`. `log` receives each entry as it happens
  /// (for tests and tools); `accessLog` writes them as lines in batches (for production).
  public init(
    configuration: HTTPServerConfiguration, handler: @escaping HTTPHandler,
    log: (@Sendable (AccessLogEntry) -> Void)? = nil, accessLog: AccessLogWriter? = nil
  ) {
    self.configuration = configuration
    self.handler = handler
    self.log = log
    self.accessLog = accessLog
  }

  /// Binds, listens and starts the event loop thread(s). Returns the bound port.
  @discardableResult public func start() throws -> Int {
    let (fd, port) = try Socket.listen(host: configuration.host, port: configuration.port)
    let core = ServerCore(
      configuration: configuration, handler: handler, log: log, accessLog: accessLog, listenFD: fd)
    let cpus = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    let count = min(max(cpus, 1), 2)
    var loops: [ServerLoop] = []
    do {
      for _ in 0..<count {
        loops.append(ServerLoop(core: core, loop: try EventLoop(time: configuration.time)))
      }
      for serverLoop in loops { serverLoop.siblings = loops }
      for serverLoop in loops { try serverLoop.start() }
    } catch {
      for serverLoop in loops { serverLoop.loop.execute { serverLoop.forceStop() } }
      Socket.close(fd)
      throw error
    }
    state.withLock {
      $0.core = core
      $0.loops = loops
    }
    return port
  }

  /// The loops, so that tests can check that they are released after shutdown.
  var eventLoops: [EventLoop] { state.withLock { $0.loops.map(\.loop) } }

  /// Graceful drain: stop accepting, let in-flight requests finish within `drainTimeout`, close everything.
  public func shutdown() async {
    let (core, loops) = state.withLock { s -> (ServerCore?, [ServerLoop]) in
      if s.shutDown { return (nil, []) }
      s.shutDown = true
      return (s.core, s.loops)
    }
    guard let core else { return }
    core.beginShutdown()
    // Refuse new connections at once; the descriptor stays open until every loop has let go of it.
    Socket.stopListening(core.listenFD)
    await withTaskGroup(of: Void.self) { group in
      for serverLoop in loops {
        group.addTask { await serverLoop.drain() }
      }
    }
    Socket.close(core.listenFD)
  }
}
