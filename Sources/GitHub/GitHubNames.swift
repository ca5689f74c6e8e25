/// Whether `s` is a valid GitHub user or organisation name: 1–39 ASCII letters, digits or single
/// hyphens, not starting or ending with a hyphen. Checked before any name reaches a URL.
public func isValidOwnerName(_ s: String) -> Bool {
  let bytes = s.utf8
  guard (1...39).contains(bytes.count), bytes.first != UInt8(ascii: "-"), bytes.last != UInt8(ascii: "-")
  else { return false }
  var previousHyphen = false
  for b in bytes {
    if b == UInt8(ascii: "-") {
      if previousHyphen { return false }
      previousHyphen = true
    } else if isASCIIAlphanumeric(b) {
      previousHyphen = false
    } else {
      return false
    }
  }
  return true
}

/// Whether `s` is a valid GitHub repository name: 1–100 of ASCII letters, digits, `.`, `-`, `_`,
/// and not `.` or `..` (which would change the URL path).
public func isValidRepoName(_ s: String) -> Bool {
  let bytes = s.utf8
  guard (1...100).contains(bytes.count), s != ".", s != ".." else { return false }
  return bytes.allSatisfy {
    isASCIIAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
  }
}

private func isASCIIAlphanumeric(_ b: UInt8) -> Bool {
  (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122)
}
