import Clocks
import HTTPServer

/// A server that `withLiveServer` started on a free loopback port.
public struct LiveServer: Sendable {
  /// The port it listens on.
  public let port: Int
  /// The server, for tests that shut it down themselves (`shutdown` may be called again).
  public let server: HTTPServer
}

/// Starts a server on a free port (whatever port `configuration` names), runs `body` with it and shuts
/// it down afterwards, also when `body` throws. For tests that need a real socket.
public func withLiveServer<T>(
  _ configuration: HTTPServerConfiguration = HTTPServerConfiguration(time: .system),
  handler: @escaping HTTPHandler,
  log: (@Sendable (AccessLogEntry) -> Void)? = nil,
  accessLog: AccessLogWriter? = nil,
  _ body: (LiveServer) async throws -> T
) async throws -> T {
  var configuration = configuration
  configuration.port = 0
  let server = HTTPServer(configuration: configuration, handler: handler, log: log, accessLog: accessLog)
  let port = try server.start()
  return try await withCleanup({ await server.shutdown() }) {
    try await body(LiveServer(port: port, server: server))
  }
}
