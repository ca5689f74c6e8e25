// The HTTPServer static path normaliser (internal, hence the testable import) on arbitrary raw paths.
import Clocks

@testable import HTTPServer

/// Any existing folder will do: the normaliser never touches the file system.
let files: StaticFiles = {
  guard let files = try? StaticFiles(root: "/", time: .system) else {
    fatalError("cannot open / as a static root")
  }
  return files
}()

/// libFuzzer entry: the input is a raw (still percent-encoded) request path, tried with and without a
/// URL prefix. An accepted path must be exactly what a byte-wise reading of the rules gives, so it
/// stays under the root: relative, no `..` or `.` segment, no NUL or backslash, no decoded slash.
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data else { return 0 }
  // libFuzzer guarantees `size` readable bytes at `data` for the duration of this call.
  let raw = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  let ascii = raw.utf8.allSatisfy { $0 > 32 && $0 < 127 }
  for prefix in ["", "/static", "/static/"] {
    let accepted = files.relativePath(raw[...], urlPrefix: prefix)
    let expected = oracle(Array(raw.utf8), prefix: Array(prefix.utf8))
    if let accepted {
      checkConfined(accepted)
      expect(
        accepted == expected,
        "\(raw) with prefix \(prefix): accepted \(accepted), rules give \(expected ?? "nil")")
      if let (plain, hash) = StaticFiles.splitHashedName(accepted) {
        expect(hash.utf8.count == 8, "hash \(hash)")
        checkConfined(plain)
      }
    } else if ascii {
      // Only bytes a request line can carry must match exactly; refusing stranger input is fine.
      expect(expected == nil, "\(raw) with prefix \(prefix): refused, rules give \(expected ?? "nil")")
    }
  }
  return 0
}

/// A relative path that cannot leave the root, judged byte by byte as the file system sees it.
func checkConfined(_ path: String) {
  // Empty names the root itself (e.g. for `/.`), which is a folder and never served.
  let bytes = Array(path.utf8)
  guard !bytes.isEmpty else { return }
  expect(bytes.first != 47, "absolute path \(path)")
  expect(!bytes.contains(0) && !bytes.contains(92), "NUL or backslash in \(path)")
  for segment in bytes.split(separator: 47, omittingEmptySubsequences: false) {
    expect(!segment.isEmpty, "empty segment in \(path)")
    expect(!segment.elementsEqual([46]) && !segment.elementsEqual([46, 46]), "dot segment in \(path)")
  }
}

/// The rules read byte-wise: strip the prefix, split at literal `/`, decode each segment, refuse a
/// segment that decodes to `..` or holds `/`, `\` or NUL, drop empty and `.` ones; a folder gets index.html.
func oracle(_ raw: [UInt8], prefix: [UInt8]) -> String? {
  var rest = raw[...]
  var prefix = prefix[...]
  if prefix.last == 47 { prefix = prefix.dropLast() }
  if !prefix.isEmpty {
    guard rest.starts(with: prefix) else { return nil }
    rest = rest.dropFirst(prefix.count)
    guard rest.isEmpty || rest.first == 47 else { return nil }
  }
  var kept: [[UInt8]] = []
  for segment in rest.split(separator: 47, omittingEmptySubsequences: false) {
    guard let decoded = percentDecode(segment) else { return nil }
    if decoded.contains(47) || decoded.contains(92) || decoded.contains(0) { return nil }
    if decoded == [46, 46] { return nil }
    if decoded.isEmpty || decoded == [46] { continue }
    kept.append(decoded)
  }
  guard let joined = String(validating: Array(kept.joined(separator: [47])), as: UTF8.self) else {
    return nil
  }
  if rest.isEmpty || rest.last == 47 { return joined.isEmpty ? "index.html" : joined + "/index.html" }
  return joined
}

func percentDecode(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
  var out: [UInt8] = []
  var i = bytes.startIndex
  while i < bytes.endIndex {
    if bytes[i] == 37 {
      guard i + 2 < bytes.endIndex, let hi = hex(bytes[i + 1]), let lo = hex(bytes[i + 2]) else { return nil }
      out.append(hi << 4 | lo)
      i += 3
    } else {
      out.append(bytes[i])
      i += 1
    }
  }
  return out
}

func hex(_ c: UInt8) -> UInt8? {
  switch c {
  case 48...57: return c - 48
  case 65...70: return c - 55
  case 97...102: return c - 87
  default: return nil
  }
}
