/// Removes the token from any text that might reach a log or a page.
struct Redactor: Sendable {
  let secret: String?

  func redact(_ text: String) -> String {
    guard let secret, !secret.isEmpty, text.contains(secret) else { return text }
    return text.replacing(secret, with: "[redacted]")
  }
}
