import Clocks
import HTTP
import HTTPServer
import Synchronization

/// A project HTTPServer on 127.0.0.1 with a free port, for one test.
struct LoopbackServer {
  let server: HTTPServer
  let port: Int

  init(drain: Duration = .milliseconds(500), routes: (inout Router) -> Void) throws {
    var router = Router()
    routes(&router)
    var configuration = HTTPServerConfiguration(time: .system)
    configuration.host = "127.0.0.1"
    configuration.port = 0
    configuration.drainTimeout = drain
    server = HTTPServer(configuration: configuration, handler: router.handler)
    port = try server.start()
  }

  func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
}

/// A thread-safe counter or flag for handlers to report what they saw.
final class Counter: Sendable {
  private let value = Atomic<Int>(0)
  func increment() { value.add(1, ordering: .relaxed) }
  var count: Int { value.load(ordering: .relaxed) }
}

/// The distinct peer addresses a handler saw.
final class PeerSet: Sendable {
  private let peers = Mutex<Set<String>>([])
  func insert(_ peer: String) { _ = peers.withLock { $0.insert(peer) } }
  var count: Int { peers.withLock { $0.count } }
}
