#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Minimal file access for loading a template folder, without Foundation.
enum TemplateFiles {
  /// Folder levels followed below the root (guards against symlink loops).
  static let maxDepth = 32

  static func list(root: String, extension ext: String) throws(MustacheError) -> [(
    name: String, path: String
  )] {
    var result: [(name: String, path: String)] = []
    try walk(root, relative: "", suffix: "." + ext, depth: 0, into: &result)
    return result.sorted { $0.name < $1.name }
  }

  private static func isDirectory(_ path: String) -> Bool? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return (info.st_mode & S_IFMT) == S_IFDIR
  }

  private static func walk(
    _ dir: String, relative: String, suffix: String, depth: Int,
    into result: inout [(name: String, path: String)]
  ) throws(MustacheError) {
    guard depth <= maxDepth else {
      throw MustacheError(
        kind: .unreadable, file: dir, line: 0, column: 0, message: "template folders nested too deeply")
    }
    guard let handle = opendir(dir) else {
      throw MustacheError(
        kind: .unreadable, file: dir, line: 0, column: 0, message: "cannot open template folder")
    }
    defer { closedir(handle) }
    var entries: [String] = []
    while let entry = readdir(handle) {
      // d_name is a fixed-size, NUL-terminated C array inside the entry readdir returned.
      let name = withUnsafePointer(to: &entry.pointee.d_name) {
        String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
      }
      if !name.hasPrefix(".") { entries.append(name) }
    }
    for name in entries {
      let path = dir.hasSuffix("/") ? dir + name : dir + "/" + name
      let rel = relative.isEmpty ? name : relative + "/" + name
      switch isDirectory(path) {
      case true: try walk(path, relative: rel, suffix: suffix, depth: depth + 1, into: &result)
      case false where rel.hasSuffix(suffix) && rel.count > suffix.count:
        result.append((String(rel.dropLast(suffix.count)), path))
      default: break
      }
    }
  }

  static func read(_ path: String) throws(MustacheError) -> String {
    guard let file = fopen(path, "rb") else {
      throw MustacheError(
        kind: .unreadable, file: path, line: 0, column: 0, message: "cannot read template file")
    }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      // fread writes at most `count` bytes into the chunk's own storage.
      let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
      if n > 0 { bytes.append(contentsOf: chunk[0..<n]) }
      if n < chunk.count { break }
    }
    if ferror(file) != 0 {
      throw MustacheError(
        kind: .unreadable, file: path, line: 0, column: 0, message: "error reading template file")
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
