import Glibc

/// One line per request: id, method, target with its query string, status, body bytes, duration.
/// The token is never in a target we log, but any line that somehow holds it is redacted anyway.
struct AccessLog: Sendable {
  let sink: @Sendable (String) -> Void
  let secret: String?

  /// Writes one line to standard error with a single `write`, so lines from threads never interleave.
  static let standardError: @Sendable (String) -> Void = { line in
    var bytes = Array(line.utf8)
    bytes.append(10)
    // Reads only the array's own bytes, which live for the duration of the closure.
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
  }

  func record(id: String, method: String, target: String, status: Int, bytes: Int, duration: Duration) {
    let micros = duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
    var line = "\(id) \(method) \(Self.printable(target)) \(status) \(bytes)B \(Double(micros) / 1000)ms"
    if let secret, !secret.isEmpty, line.contains(secret) {
      line = line.replacing(secret, with: "[redacted]")
    }
    sink(line)
  }

  /// A free-form line (errors), redacted and made printable like the request lines.
  func note(_ text: String) {
    var line = Self.printable(text)
    if let secret, !secret.isEmpty, line.contains(secret) {
      line = line.replacing(secret, with: "[redacted]")
    }
    sink(line)
  }

  /// Control characters cannot reach the log (they could forge lines).
  private static func printable(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return text }
    return String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
  }
}
