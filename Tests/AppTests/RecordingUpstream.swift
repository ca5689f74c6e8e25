import App
import Clocks
import Foundation
import GitHubDouble
import HTTP
import HTTPServer
import Synchronization
import TestSupport

/// An upstream in front of a GitHub double: it records every request's target and headers, and can
/// answer some requests itself (redirects, reflected secrets) instead of passing them on. In process
/// by default (its handler is the app's transport); `live` puts it on a loopback port.
final class RecordingUpstream: Sendable {
  /// One request as the upstream received it.
  struct Seen: Sendable {
    let target: String
    let headers: HTTPHeaders
  }

  /// Answers a request in place of the double, or nil to pass it on.
  typealias Override = @Sendable (HTTPRequest) -> HTTPResponse?

  /// The recorded requests and the current override, shared with the server's handler.
  private final class Shared: Sendable {
    let seen = Mutex<[Seen]>([])
    let override = Mutex<Override?>(nil)
  }

  let double: GitHubDouble
  /// The loopback port when live, else 0.
  let port: Int
  /// The recording handler: the server's when live, the app's transport's otherwise.
  let handler: HTTPHandler
  private let server: HTTPServer?
  private let shared: Shared

  /// Records in front of `double`; when `live`, on 127.0.0.1 at a free port.
  init(double: GitHubDouble, live: Bool = false) throws {
    let shared = Shared()
    let inner = double.handler
    let handler: HTTPHandler = { request, context in
      shared.seen.withLock { $0.append(Seen(target: request.target, headers: request.headers)) }
      if let override = shared.override.withLock({ $0 }), let response = override(request) {
        return response
      }
      return try await inner(request, context)
    }
    if live {
      var configuration = HTTPServerConfiguration(time: .system)
      configuration.host = "127.0.0.1"
      configuration.port = 0
      let server = HTTPServer(configuration: configuration, handler: handler)
      port = try server.start()
      self.server = server
    } else {
      port = 0
      server = nil
    }
    self.handler = handler
    self.double = double
    self.shared = shared
  }

  /// Every request received so far (control calls to `/_double/` included).
  var seen: [Seen] { shared.seen.withLock { $0 } }

  /// Requests whose path starts with `prefix`.
  func seen(pathPrefix prefix: String) -> [Seen] { seen.filter { $0.target.hasPrefix(prefix) } }

  /// Forgets what was recorded.
  func clear() { shared.seen.withLock { $0.removeAll() } }

  /// Answers requests with `override` (nil passes everything to the double again).
  func setOverride(_ override: Override?) { shared.override.withLock { $0 = override } }

  /// Stops the server, if live.
  func stop() async { await server?.shutdown() }

  /// Runs `body` with an app whose API and avatar hosts are this upstream, then stops both: in process
  /// unless `live` (for what needs the app's server or libcurl: raw bytes, the access log, redirects).
  static func withApp(
    double: GitHubDouble = AppHarness.smallDouble(), live: Bool = false,
    configure: (inout AppConfiguration) -> Void = { _ in },
    _ body: (AppHarness, RecordingUpstream) async throws -> Void
  ) async throws {
    let upstream = try RecordingUpstream(double: double, live: live)
    let harness: AppHarness
    do {
      harness =
        live
        ? try AppHarness.start(double: double, doublePort: upstream.port, configure: configure)
        : try AppHarness.inProcess(double: double, upstream: upstream.handler, configure: configure)
    } catch {
      await upstream.stop()
      throw error
    }
    try await withCleanup({
      await harness.stop(stopDouble: false)
      await upstream.stop()
    }) { try await body(harness, upstream) }
  }
}
