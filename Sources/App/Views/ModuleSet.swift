import HTTPServer

/// The page's ES modules, served from one fingerprinted folder, `/static/m/{set}/{file}`, so that
/// the relative imports between them (`import … from './cards.js'`) resolve to fingerprinted URLs
/// too. The set's name is built from every module's content hash, so it changes whenever any module
/// changes; each file is then answered exactly as its content-hashed static URL would be (immutable).
///
/// ```swift
/// let modules = try ModuleSet(files: ["cards.js", "feed.js"], entries: ["feed.js"], staticFiles: files)
/// modules.entryURLs        // ["/static/m/1c0ffee5/feed.js"]
/// modules.resolve("/static/m/1c0ffee5/cards.js")   // "/static/cards.3f2a9c1b.js"
/// ```
struct ModuleSet: Sendable {
  /// A module file that is not in the static folder.
  struct MissingFile: Error {
    let name: String
  }

  /// Where module URLs start.
  static let prefix = "/static/m/"

  /// The folder name: 8 hex digits derived from the modules' content hashes.
  let name: String
  /// Module file name -> its content-hashed static path.
  private let hashedPaths: [String: String]
  /// The entry modules' URLs, in load order (the page's `<script type="module">` elements).
  let entryURLs: [String]
  /// The modules the entries import, for `<link rel="modulepreload">`.
  let importedURLs: [String]

  /// All `files` are modules (folder-free names in the static root); `entries` are the ones the page loads.
  init(files: [String], entries: [String], staticFiles: StaticFiles) throws(MissingFile) {
    var paths: [String: String] = [:]
    var combined: UInt32 = 0
    for (index, file) in files.enumerated() {
      guard let path = staticFiles.hashedPath(for: file, urlPrefix: "/static"),
        let hash = Self.contentHash(of: path)
      else { throw MissingFile(name: file) }
      paths[file] = path
      // Rotated by position, so that the name depends on which file holds which content.
      let shift = UInt32(index * 5 % 32)
      combined ^= shift == 0 ? hash : (hash << shift) | (hash >> (32 - shift))
    }
    let hex = String(combined, radix: 16)
    name = String(repeating: "0", count: 8 - hex.count) + hex
    hashedPaths = paths
    let folder = Self.prefix + name + "/"
    entryURLs = entries.map { folder + $0 }
    importedURLs = files.filter { !entries.contains($0) }.map { folder + $0 }
  }

  /// The static path that answers a module URL: the content-hashed one (cached for good) for this set;
  /// the plain one (revalidated) for another set's name, so that a page rendered before the modules
  /// changed still gets one consistent set; nil for anything else.
  func resolve(_ path: Substring) -> String? {
    guard path.utf8.starts(with: Self.prefix.utf8) else { return nil }
    let rest = path.dropFirst(Self.prefix.count)
    guard let slash = rest.firstIndex(of: "/") else { return nil }
    let set = rest[..<slash]
    let file = String(rest[rest.index(after: slash)...])
    guard let hashed = hashedPaths[file] else { return nil }
    if set == name { return hashed }
    guard set.utf8.count == 8, set.utf8.allSatisfy({ Self.isHexDigit($0) }) else { return nil }
    return "/static/" + file
  }

  private static func isHexDigit(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
      || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
  }

  /// The 8-hex hash in a hashed path "/static/name.3f2a9c1b.js".
  private static func contentHash(of path: String) -> UInt32? {
    let parts = path.split(separator: ".")
    guard parts.count >= 3 else { return nil }
    return UInt32(parts[parts.count - 2], radix: 16)
  }
}
