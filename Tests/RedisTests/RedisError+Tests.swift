import Redis

extension RedisError {
  /// The reason of a `connectionLost` error; nil for any other error.
  static func lostReason(of error: any Error) -> String? {
    guard case RedisError.connectionLost(let reason) = error else { return nil }
    return reason
  }

  /// The server's words in an `authFailed` error; nil for any other error.
  static func authMessage(of error: any Error) -> String? {
    guard case RedisError.authFailed(let message) = error else { return nil }
    return message
  }

  /// The text of a `server` error reply; nil for any other error.
  static func serverMessage(of error: any Error) -> String? {
    guard case RedisError.server(let message) = error else { return nil }
    return message
  }
}
