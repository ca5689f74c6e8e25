/// Why a WebDriver or browser-test helper call failed, with enough detail to diagnose it from a test log.
public enum WebDriverError: Error, Sendable, CustomStringConvertible {
  /// Chromium or chromedriver is not installed (script/test installs them).
  case unavailable(String)
  /// chromedriver answered a command with a W3C error body.
  case command(command: String, status: Int, error: String, message: String)
  /// The HTTP exchange itself failed (connection refused, timeout, unreadable reply).
  case transport(command: String, message: String)
  /// The reply was well-formed JSON but not the shape the command promises.
  case unexpectedReply(command: String, reply: String)
  /// A `waitUntil` condition did not hold in time.
  case timeout(String)
  /// A child process failed to start or exited early.
  case process(String)

  /// The W3C error code (for example "no such element" or "javascript error"), if chromedriver sent one.
  public var errorCode: String? {
    if case .command(_, _, let error, _) = self { return error }
    return nil
  }

  /// A one-paragraph explanation.
  public var description: String {
    switch self {
    case .unavailable(let message):
      return "browser unavailable: \(message)"
    case .command(let command, let status, let error, let message):
      return "\(command) failed with HTTP \(status) \(error): \(message)"
    case .transport(let command, let message):
      return "\(command) transport error: \(message)"
    case .unexpectedReply(let command, let reply):
      return "\(command) unexpected reply: \(reply.prefix(500))"
    case .timeout(let message):
      return "timed out: \(message)"
    case .process(let message):
      return "process error: \(message)"
    }
  }
}
