import HTTP

extension GitHubDouble {
  /// Starts an HTTPServer on host:port (0 = a free port) and returns the bound port.
  public func start(host: String = "127.0.0.1", port: Int = 0) throws -> Int {
    throw HTTPError(.serviceUnavailable, "HTTPServer not merged yet")
  }

  /// Drains and stops the server started by `start`, if any.
  public func shutdown() async {}
}
