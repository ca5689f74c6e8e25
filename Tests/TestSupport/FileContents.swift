#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The bytes of the file at `path`; nil when it cannot be opened.
public func fileBytes(atPath path: String) -> [UInt8]? {
  guard let file = fopen(path, "rb") else { return nil }
  defer { fclose(file) }
  var bytes: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 65536)
  while true {
    // fread writes at most buffer.count bytes into the array's own storage.
    let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
    if count <= 0 { break }
    bytes.append(contentsOf: buffer[0..<count])
  }
  return bytes
}

/// The file at `path` as UTF-8 text (invalid bytes repaired); nil when it cannot be opened.
public func fileText(atPath path: String) -> String? {
  fileBytes(atPath: path).map { String(decoding: $0, as: UTF8.self) }
}
