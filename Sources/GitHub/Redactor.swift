import Encodings
import HTTP

/// Removes the tokens from any text that might reach a log or a page, in their plain form and with
/// any of their characters written as a JSON `\uXXXX` escape or a `%XX` percent-escape. The one
/// redaction of the project: upstream text here, and the app's log lines. It holds the server's token
/// and, for a signed-in reader's call, the reader's token too (`adding(_:)`).
public struct Redactor: Sendable {
  /// The secrets' bytes, empty ones left out.
  private let secrets: [[UInt8]]

  /// A redactor of `secret`; with nil or an empty secret it changes nothing.
  public init(secret: String?) {
    secrets = secret.map { $0.isEmpty ? [] : [Array($0.utf8)] } ?? []
  }

  private init(secrets: [[UInt8]]) { self.secrets = secrets }

  /// This redactor, also removing `secret` (a reader's token); itself for an empty secret.
  public func adding(_ secret: String) -> Redactor {
    secret.isEmpty ? self : Redactor(secrets: secrets + [Array(secret.utf8)])
  }

  func redact(_ text: String) -> String {
    guard !secrets.isEmpty else { return text }
    var text = text
    // The buffer lives for the closure only; `redacted` checks every index against its count.
    let replaced: [UInt8]? = text.withUTF8 { redacted($0.span) }
    return replaced.map { String(decoding: $0, as: UTF8.self) } ?? text
  }

  /// An upstream body with the token removed, before any message is read from it (a message cut
  /// short after the token's first bytes would otherwise slip past `redact(_:)` with part of it).
  func redact(_ body: [UInt8]) -> [UInt8] {
    guard !secrets.isEmpty else { return body }
    return redacted(body.span) ?? body
  }

  /// Replaces every occurrence in `buffer[start...]` in place; no allocation when there is none.
  public func redact(_ buffer: inout [UInt8], from start: Int) {
    guard !secrets.isEmpty, start >= 0, start < buffer.count else { return }
    let tail = redacted(buffer.span.extracting(start...))
    if let tail { buffer.replaceSubrange(start..., with: tail) }
  }

  private static let marker = Array("[redacted]".utf8)

  /// The bytes with every occurrence replaced by `[redacted]`, or nil when there is none.
  private func redacted(_ bytes: Span<UInt8>) -> [UInt8]? {
    var out: [UInt8]? = nil
    var copied = 0
    var i = 0
    while i < bytes.count {
      guard let end = match(bytes, at: i) else {
        i += 1
        continue
      }
      if out == nil { out = [] }
      out?.append(bytes, copied..<i)
      out?.append(contentsOf: Self.marker)
      i = end
      copied = end
    }
    guard var result = out else { return nil }
    result.append(bytes, copied..<bytes.count)
    return result
  }

  /// Where an occurrence of any secret starting at `start` ends (the longest), or nil.
  private func match(_ bytes: Span<UInt8>, at start: Int) -> Int? {
    // One secret (the server's token, the access log's case) is checked without the loop.
    if secrets.count == 1 { return match(bytes, at: start, secret: secrets[0]) }
    var end: Int? = nil
    for secret in secrets {
      if let found = match(bytes, at: start, secret: secret), found > (end ?? start) { end = found }
    }
    return end
  }

  /// Where an occurrence of `secret` starting at `start` ends, or nil.
  private func match(_ bytes: Span<UInt8>, at start: Int, secret: [UInt8]) -> Int? {
    var i = start
    for expected in secret {
      guard i < bytes.count else { return nil }
      let byte = bytes[i]
      if byte == expected {
        i += 1
      } else if expected < 0x80, byte == UInt8(ascii: "%"), let value = hex(bytes, i + 1, digits: 2),
        value == expected
      {
        i += 3
      } else if expected < 0x80, byte == UInt8(ascii: "\\"), i + 1 < bytes.count,
        bytes[i + 1] == UInt8(ascii: "u"), let value = hex(bytes, i + 2, digits: 4), value == expected
      {
        i += 6
      } else {
        return nil
      }
    }
    return i
  }

  /// The value of `digits` hex digits at `start` if it fits a byte, else nil.
  private func hex(_ bytes: Span<UInt8>, _ start: Int, digits: Int) -> UInt8? {
    guard start + digits <= bytes.count else { return nil }
    var value = 0
    for k in start..<start + digits {
      guard let digit = URLEncoding.hexValue(bytes[k]) else { return nil }
      value = value << 4 | Int(digit)
    }
    return value < 0x100 ? UInt8(value) : nil
  }
}
