/// The `return_to` of `/login`: a same-origin path, or `/` for anything else. Only a path that starts
/// with one `/` and holds no backslash, control character, space or non-ASCII byte, plain or
/// percent-encoded, passes, so no browser can read it as another host (`//evil`, `/\evil`,
/// `https://evil`).
enum ReturnPath {
  /// The longest return path kept (a longer one falls back to `/`).
  static let maxLength = 2048

  /// `candidate` if it is a safe same-origin path, else `/`.
  static func sanitized(_ candidate: String?) -> String {
    guard let candidate, isSafe(candidate) else { return "/" }
    return candidate
  }

  /// Whether `path` is a same-origin path a redirect may go to.
  static func isSafe(_ path: String) -> Bool {
    let bytes = Array(path.utf8)
    guard (1...maxLength).contains(bytes.count), bytes[0] == UInt8(ascii: "/") else { return false }
    if bytes.count > 1, bytes[1] == UInt8(ascii: "/") || bytes[1] == UInt8(ascii: "\\") { return false }
    for byte in bytes where byte <= 0x20 || byte >= 0x7f || byte == UInt8(ascii: "\\") { return false }
    // Nor encoded: a control character, a backslash, or a second slash right after the first
    // (harmless to today's browsers, and nothing a real page address needs).
    let lower = path.lowercased()
    if lower.hasPrefix("/%2f") || lower.hasPrefix("/%5c") || lower.contains("%5c") || lower.contains("%7f") {
      return false
    }
    var index = 0
    while index + 2 < bytes.count {
      if bytes[index] == UInt8(ascii: "%"),
        bytes[index + 1] == UInt8(ascii: "0") || bytes[index + 1] == UInt8(ascii: "1")
      {
        return false
      }
      index += 1
    }
    // Sign-in pages are never a destination (a loop, or a callback replayed).
    if path == "/login" || path.hasPrefix("/login?") || path.hasPrefix("/login/") || path.hasPrefix("/logout")
    {
      return false
    }
    return true
  }
}
