/// Removes the token from any text that might reach a log or a page.
struct Redactor: Sendable {
  let secret: String?

  func redact(_ text: String) -> String {
    guard let secret, !secret.isEmpty, text.contains(secret) else { return text }
    return text.replacing(secret, with: "[redacted]")
  }

  /// An upstream body with the token removed, before any message is read from it (a message cut
  /// short after the token's first bytes would otherwise slip past `redact(_:)` with part of it).
  func redact(_ body: [UInt8]) -> [UInt8] {
    guard let secret, !secret.isEmpty else { return body }
    let text = String(decoding: body, as: UTF8.self)
    guard text.contains(secret) else { return body }
    return Array(text.replacing(secret, with: "[redacted]").utf8)
  }
}
