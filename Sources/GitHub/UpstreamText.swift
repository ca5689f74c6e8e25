/// Makes a string from upstream fit to keep and show: control characters other than tab and
/// newline are removed (C0, DEL and C1), and the token is redacted. Applied once, at decode time.
struct UpstreamText: Sendable {
  let redactor: Redactor

  /// Cleaning only, for a client without a token (and for tests).
  static let tokenless = UpstreamText(redactor: Redactor(secret: nil))

  func clean(_ text: String) -> String {
    redactor.redact(Self.withoutControls(text))
  }

  func clean(_ text: String?) -> String? {
    text.map(clean)
  }

  /// `text` without control characters; the same string when it has none (no copy).
  static func withoutControls(_ text: String) -> String {
    var utf8 = text.utf8.makeIterator()
    var found = false
    var previous: UInt8 = 0
    while let byte = utf8.next() {
      // C1 controls are U+0080…U+009F, encoded 0xC2 0x80…0x9F.
      if (byte < 0x20 && byte != 0x09 && byte != 0x0A) || byte == 0x7F || (previous == 0xC2 && byte < 0xA0) {
        found = true
        break
      }
      previous = byte
    }
    guard found else { return text }
    var scalars = String.UnicodeScalarView()
    for scalar in text.unicodeScalars where !isControl(scalar) { scalars.append(scalar) }
    return String(scalars)
  }

  private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    let v = scalar.value
    return (v < 0x20 && v != 0x09 && v != 0x0A) || (0x7F...0x9F).contains(v)
  }
}
