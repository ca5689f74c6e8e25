import Digests
import Encodings
import Glibc
import HTTP
import Sockets

// Path normalisation and file access for `StaticFiles`, kept apart from the cache logic.
extension StaticFiles {
  /// The normalised relative path for a raw (percent-encoded) request path, or nil to answer 404.
  func relativePath(_ rawPath: Substring, urlPrefix: String) -> String? {
    var raw = rawPath
    if !urlPrefix.isEmpty {
      let prefix = urlPrefix.hasSuffix("/") ? urlPrefix.dropLast() : Substring(urlPrefix)
      guard raw.hasPrefix(prefix) else { return nil }
      raw = raw.dropFirst(prefix.count)
      guard raw.isEmpty || raw.hasPrefix("/") else { return nil }
    }
    // Encoded slashes and backslashes would let a single segment smuggle a separator.
    if Self.hasForbiddenEscape(raw) { return nil }
    guard let decoded = URLEncoding.percentDecode(raw) else { return nil }
    var path = Self.normalise(decoded)
    // By byte: a prepended mark such as U+06DD joins the `/` after it into one Character.
    if raw.isEmpty || raw.utf8.last == UInt8(ascii: "/") {
      path = path.map { $0.isEmpty ? "index.html" : $0 + "/index.html" }
    }
    return path
  }

  /// Whether `raw` holds `%2F`, `%5C` or `%00` (any case). Byte-wise: a String search compares whole
  /// characters, so a combining mark after the escape would hide it.
  static func hasForbiddenEscape(_ raw: Substring) -> Bool {
    var before: UInt8 = 0
    var last: UInt8 = 0
    for byte in raw.utf8 {
      if before == UInt8(ascii: "%") {
        let low = byte | 0x20
        if (last == UInt8(ascii: "2") && low == UInt8(ascii: "f"))
          || (last == UInt8(ascii: "5") && low == UInt8(ascii: "c"))
          || (last == UInt8(ascii: "0") && byte == UInt8(ascii: "0"))
        {
          return true
        }
      }
      before = last
      last = byte
    }
    return false
  }

  /// Drops empty and `.` segments; nil for `..`, NUL or backslashes.
  static func normalise(_ path: String) -> String? {
    if path.utf8.contains(0) || path.utf8.contains(92) { return nil }
    var out: [Substring] = []
    // Split on the byte `/` as the file system does: splitting characters would let a combining mark
    // glue `/` to the next segment and hide a `..` (`/../\u{301}x`) or a leading slash.
    for segment in path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
      if segment.elementsEqual(".".utf8) { continue }
      if segment.elementsEqual("..".utf8) { return nil }
      out.append(Substring(segment))
    }
    return out.joined(separator: "/")
  }

  /// `app.3f2a9c1b.css` -> (`app.css`, `3f2a9c1b`) with the folder kept.
  static func splitHashedName(_ path: String) -> (String, String)? {
    let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
    let name = path[slash...]
    let pieces = name.split(separator: ".", omittingEmptySubsequences: false)
    guard pieces.count >= 2 else { return nil }
    let hashIndex = pieces.count >= 3 ? pieces.count - 2 : pieces.count - 1
    let hash = pieces[hashIndex]
    guard hashIndex > 0, hash.utf8.count == 8,
      hash.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) })
    else { return nil }
    var plain = pieces
    plain.remove(at: hashIndex)
    let plainName = plain.joined(separator: ".")
    // `..3f2a9c1b.` would otherwise become a `..` segment, `.3f2a9c1b.` a `.` one.
    guard !plainName.utf8.allSatisfy({ $0 == UInt8(ascii: ".") }) else { return nil }
    return (String(path[..<slash]) + plainName, String(hash))
  }

  /// 8 hex digits of a 64-bit FNV-1a hash of the contents.
  static func contentHash(_ bytes: [UInt8]) -> String {
    let h = FNV1a.hash(bytes)
    let folded = UInt32(truncatingIfNeeded: h ^ (h >> 32))
    let hex = String(folded, radix: 16)
    return String(repeating: "0", count: 8 - hex.count) + hex
  }

  static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// The whole file, read through `Syscall` (EINTR retried); nil if it cannot be opened or read.
  static func readFile(_ path: String) -> [UInt8]? {
    guard let fd = try? Syscall.check("open", { open(path, O_RDONLY | O_CLOEXEC) }) else { return nil }
    defer { Socket.close(fd) }
    var st = stat()
    guard (try? Syscall.check("fstat", { fstat(fd, &st) })) != nil else { return nil }
    let size = Int(st.st_size)
    var bytes = [UInt8](repeating: 0, count: size)
    var offset = 0
    while offset < size {
      // The pointer stays inside the array's own storage: offset < size == bytes.count.
      let n = bytes.withUnsafeMutableBytes { raw in
        try? Syscall.check("read") { read(fd, raw.baseAddress.map { $0 + offset }, size - offset) }
      }
      guard let n, n > 0 else { break }
      offset += n
    }
    if offset < size { bytes.removeLast(size - offset) }
    return bytes
  }
}
