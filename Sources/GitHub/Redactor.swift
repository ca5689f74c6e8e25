import HTTP

/// Removes the token from any text that might reach a log or a page, in its plain form and with
/// any of its characters written as a JSON `\uXXXX` escape or a `%XX` percent-escape. The one
/// redaction of the project: upstream text here, and the app's log lines.
public struct Redactor: Sendable {
  let secret: String?
  private let secretBytes: [UInt8]

  /// A redactor of `secret`; with nil or an empty secret it changes nothing.
  public init(secret: String?) {
    self.secret = secret
    secretBytes = Array((secret ?? "").utf8)
  }

  func redact(_ text: String) -> String {
    guard !secretBytes.isEmpty else { return text }
    var text = text
    // The buffer lives for the closure only; `redacted` checks every index against its count.
    let replaced: [UInt8]? = text.withUTF8 { redacted($0) }
    return replaced.map { String(decoding: $0, as: UTF8.self) } ?? text
  }

  /// An upstream body with the token removed, before any message is read from it (a message cut
  /// short after the token's first bytes would otherwise slip past `redact(_:)` with part of it).
  func redact(_ body: [UInt8]) -> [UInt8] {
    guard !secretBytes.isEmpty else { return body }
    // As above: read only within the closure, indices checked.
    return body.withUnsafeBufferPointer { redacted($0) } ?? body
  }

  /// Replaces every occurrence in `buffer[start...]` in place; no allocation when there is none.
  public func redact(_ buffer: inout [UInt8], from start: Int) {
    guard !secretBytes.isEmpty, start >= 0, start < buffer.count else { return }
    // Read only within the closure; `redacted` checks every index against the slice's count.
    let tail = buffer.withUnsafeBufferPointer { redacted(UnsafeBufferPointer(rebasing: $0[start...])) }
    if let tail { buffer.replaceSubrange(start..., with: tail) }
  }

  private static let marker = Array("[redacted]".utf8)

  /// The bytes with every occurrence replaced by `[redacted]`, or nil when there is none.
  private func redacted(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    var out: [UInt8]? = nil
    var copied = 0
    var i = 0
    while i < bytes.count {
      guard let end = match(bytes, at: i) else {
        i += 1
        continue
      }
      if out == nil { out = [] }
      out?.append(contentsOf: bytes[copied..<i])
      out?.append(contentsOf: Self.marker)
      i = end
      copied = end
    }
    guard var result = out else { return nil }
    result.append(contentsOf: bytes[copied...])
    return result
  }

  /// Where an occurrence of the secret starting at `start` ends, or nil.
  private func match(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
    var i = start
    for expected in secretBytes {
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
  private func hex(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, digits: Int) -> UInt8? {
    guard start + digits <= bytes.count else { return nil }
    var value = 0
    for k in start..<start + digits {
      guard let digit = URLEncoding.hexValue(bytes[k]) else { return nil }
      value = value << 4 | Int(digit)
    }
    return value < 0x100 ? UInt8(value) : nil
  }
}
