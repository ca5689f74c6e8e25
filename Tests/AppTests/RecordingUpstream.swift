import App
import Foundation
import GitHubDouble
import HTTP
import HTTPServer
import Synchronization
import TestSupport

/// A loopback server in front of a GitHub double: it records every request's target and headers, and
/// can answer some requests itself (redirects, reflected secrets) instead of passing them on.
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
  let port: Int
  private let server: HTTPServer
  private let shared: Shared

  /// Starts on 127.0.0.1 at a free port.
  init(double: GitHubDouble) throws {
    let shared = Shared()
    let inner = double.handler
    var configuration = HTTPServerConfiguration()
    configuration.host = "127.0.0.1"
    configuration.port = 0
    server = HTTPServer(
      configuration: configuration,
      handler: { request, context in
        shared.seen.withLock { $0.append(Seen(target: request.target, headers: request.headers)) }
        if let override = shared.override.withLock({ $0 }), let response = override(request) {
          return response
        }
        return try await inner(request, context)
      })
    port = try server.start()
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

  /// Stops the server.
  func stop() async { await server.shutdown() }

  /// Runs `body` with an app whose API and avatar hosts are this upstream, then stops both.
  static func withApp(
    double: GitHubDouble = AppHarness.smallDouble(), configure: (inout AppConfiguration) -> Void = { _ in },
    _ body: (AppHarness, RecordingUpstream) async throws -> Void
  ) async throws {
    let upstream = try RecordingUpstream(double: double)
    let harness: AppHarness
    do {
      harness = try AppHarness.start(double: double, doublePort: upstream.port, configure: configure)
    } catch {
      await upstream.stop()
      throw error
    }
    do {
      try await body(harness, upstream)
    } catch {
      await harness.stop(stopDouble: false)
      await upstream.stop()
      throw error
    }
    await harness.stop(stopDouble: false)
    await upstream.stop()
  }
}
