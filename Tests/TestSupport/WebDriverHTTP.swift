import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The HTTP leg to chromedriver: one JSON request, one JSON reply, errors mapped to `WebDriverError`.
///
/// A tiny HTTP/1.1 client over a blocking loopback socket on its own thread, because Foundation's
/// URLSession on Linux failed here with "Failed writing header" against chromedriver.
struct WebDriverHTTP: Sendable {
  let port: Int
  let defaultTimeout: Duration

  /// Sends one command and returns its `value` member.
  func send(
    _ method: String, _ path: String, body: WebDriverJSON? = nil, timeout: Duration? = nil
  ) async throws -> WebDriverJSON {
    let command = "\(method) \(path)"
    let payload = try body.map { [UInt8](try $0.serialized()) }
    let reply: WebDriverLoopbackHTTP.Reply
    do {
      reply = try await WebDriverLoopbackHTTP.exchange(
        port: port, method: method, path: path, body: payload, timeout: timeout ?? defaultTimeout)
    } catch {
      throw WebDriverError.transport(command: command, message: String(describing: error))
    }
    let json: WebDriverJSON
    do {
      json = try WebDriverJSON.parse(Data(reply.body))
    } catch {
      throw WebDriverError.transport(
        command: command,
        message:
          "HTTP \(reply.status), body is not JSON: \(String(decoding: reply.body.prefix(300), as: UTF8.self))"
      )
    }
    let value = json["value"] ?? .null
    if reply.status != 200 || value["error"]?.string != nil {
      throw WebDriverError.command(
        command: command, status: reply.status, error: value["error"]?.string ?? "unknown error",
        message: Self.trimmed(value["message"]?.string ?? json.description))
    }
    return value
  }

  /// Drops chromedriver's native stack addresses, which only add noise to test logs.
  private static func trimmed(_ message: String) -> String {
    message.split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n")
  }
}

extension Duration {
  /// The duration in (fractional) seconds, for Foundation and POSIX APIs.
  var asTimeInterval: Double {
    let parts = components
    return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
  }
}
