import Clocks
import HTTP
import HTTPServer
import Synchronization

/// A loopback server that counts requests and answers each with `body`: the "other host" an SSRF
/// attempt would reach.
final class CountingServer: Sendable {
  let port: Int
  private let server: HTTPServer
  private let hits: HitCounter

  /// A shared count (an atomic cannot be captured by the handler directly: it is not copyable).
  private final class HitCounter: Sendable {
    let value = Atomic<Int>(0)
  }

  /// Bytes no legitimate answer contains.
  static let marker = Array("EVIL-HOST-BYTES-7f3a".utf8)

  init() throws {
    let hits = HitCounter()
    var configuration = HTTPServerConfiguration(time: .system)
    configuration.host = "127.0.0.1"
    configuration.port = 0
    server = HTTPServer(
      configuration: configuration,
      handler: { _, _ in
        hits.value.add(1, ordering: .relaxed)
        return HTTPResponse(
          status: .ok, headers: ["Content-Type": "image/png"], body: .bytes(CountingServer.marker))
      })
    port = try server.start()
    self.hits = hits
  }

  /// Requests received so far.
  var count: Int { hits.value.load(ordering: .relaxed) }

  func stop() async { await server.shutdown() }
}
