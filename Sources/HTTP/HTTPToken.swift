/// RFC 9110 tokens: methods, field names and other protocol words.
public enum HTTPToken {
  /// Whether `c` is a `tchar`.
  @inlinable @inline(__always)
  public static func isTokenChar(_ c: UInt8) -> Bool {
    switch c {
    case 48...57, 65...90, 97...122: return true
    case 33, 35, 36, 37, 38, 39, 42, 43, 45, 46, 94, 95, 96, 124, 126: return true
    default: return false
    }
  }

  /// Whether `text` is a non-empty run of `tchar`s.
  public static func isToken(_ text: some StringProtocol) -> Bool {
    !text.isEmpty && text.utf8.allSatisfy(isTokenChar)
  }
}
