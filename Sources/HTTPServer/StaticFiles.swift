import Glibc
import HTTP
import Synchronization

/// Static files confined to one root folder, with validators, 304s and an in-memory cache for small files.
public final class StaticFiles: Sendable {
  /// What is known about one file; rebuilt when its size or mtime changes. A class, so that handing it
  /// out of the cache costs one retain rather than one per field.
  final class Entry: Sendable {
    let realPath: String
    let size: Int
    let mtimeSeconds: Int
    let mtimeNanoseconds: Int
    let hash: String
    let etag: String
    /// The contents when small enough to keep in memory.
    let bytes: [UInt8]?
    let headers: HTTPHeaders
    let immutableHeaders: HTTPHeaders
    /// Monotonic second of the last stat; updated in place by whichever request revalidates.
    let checkedAt: Atomic<Int>

    init(
      realPath: String, size: Int, mtimeSeconds: Int, mtimeNanoseconds: Int, hash: String, etag: String,
      bytes: [UInt8]?, headers: HTTPHeaders, immutableHeaders: HTTPHeaders, checkedAt: Int
    ) {
      self.realPath = realPath
      self.size = size
      self.mtimeSeconds = mtimeSeconds
      self.mtimeNanoseconds = mtimeNanoseconds
      self.hash = hash
      self.etag = etag
      self.bytes = bytes
      self.headers = headers
      self.immutableHeaders = immutableHeaders
      self.checkedAt = Atomic(checkedAt)
    }
  }

  private let root: String
  private let cacheControl: String
  private let immutableCacheControl: String
  private let memoryCacheMaxFileBytes: Int
  private let entries = Mutex<[String: Entry]>([:])
  /// Raw request paths (with their prefix) already resolved to a relative path, so that repeat requests
  /// skip decoding and normalising. Only paths of existing files get in; it is bounded.
  private let resolved = Mutex<[String: (relative: String, immutable: Bool)]>([:])
  private static let resolvedLimit = 4096

  /// Serves files below `root`, which must be an existing folder.
  public init(
    root: String, cacheControl: String = "public, max-age=300",
    immutableCacheControl: String = "public, max-age=31536000, immutable",
    memoryCacheMaxFileBytes: Int = 256 * 1024
  ) throws {
    guard let resolved = StaticFiles.realPath(root) else {
      throw HTTPError(.internalServerError, "static root \(root) does not exist")
    }
    var st = stat()
    guard stat(resolved, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else {
      throw HTTPError(.internalServerError, "static root \(root) is not a folder")
    }
    self.root = resolved.hasSuffix("/") ? resolved : resolved + "/"
    self.cacheControl = cacheControl
    self.immutableCacheControl = immutableCacheControl
    self.memoryCacheMaxFileBytes = memoryCacheMaxFileBytes
  }

  /// Serves `request.path` (percent-decoded, normalised) below root; 404 for anything outside,
  /// ETag/Last-Modified/304, content type by extension. `urlPrefix` is stripped first (e.g. "/static").
  public func response(for request: HTTPRequest, urlPrefix: String = "") async -> HTTPResponse {
    guard request.method == .get || request.method == .head else {
      return HTTPError(.methodNotAllowed, "method not allowed", headers: ["Allow": "GET, HEAD"]).response
    }
    let key = urlPrefix.isEmpty ? String(request.path) : urlPrefix + "\u{0}" + request.path
    var immutable = false
    var found: Entry?
    if let known = resolved.withLock({ $0[key] }) {
      immutable = known.immutable
      found = entry(for: known.relative)
      if immutable, let entry = found, Self.splitHashedName(String(request.path))?.1 != entry.hash {
        found = nil
      }
    } else {
      guard let relative = relativePath(request.path, urlPrefix: urlPrefix) else { return notFound }
      var plainPath = relative
      if let (plain, hash) = Self.splitHashedName(relative), let entry = entry(for: plain), entry.hash == hash
      {
        found = entry
        immutable = true
        plainPath = plain
      } else {
        found = entry(for: relative)
      }
      if found != nil {
        resolved.withLock {
          if $0.count >= Self.resolvedLimit { $0.removeAll() }
          $0[key] = (plainPath, immutable)
        }
      }
    }
    guard let entry = found else { return notFound }
    let headers = immutable ? entry.immutableHeaders : entry.headers
    if isNotModified(request.headers, entry) {
      return HTTPResponse(status: .notModified, headers: headers)
    }
    if let bytes = entry.bytes { return HTTPResponse(status: .ok, headers: headers, body: .bytes(bytes)) }
    guard let bytes = Self.readFile(entry.realPath, limit: Int.max) else { return notFound }
    return HTTPResponse(status: .ok, headers: headers, body: .bytes(bytes))
  }

  /// Content-hashed URL for a file, e.g. "app.css" -> "/static/app.3f2a9c1b.css"; a file name of the form
  /// name.<8 hex>.ext resolves to name.ext and gets immutableCacheControl (if the hash matches).
  public func hashedPath(for relativePath: String, urlPrefix: String) -> String? {
    guard let normalised = Self.normalise(relativePath), let entry = entry(for: normalised) else {
      return nil
    }
    var parts = normalised.split(separator: "/", omittingEmptySubsequences: false)
    guard let last = parts.popLast() else { return nil }
    let name: String
    if let dot = last.lastIndex(of: "."), dot != last.startIndex {
      name = "\(last[..<dot]).\(entry.hash)\(last[dot...])"
    } else {
      name = "\(last).\(entry.hash)"
    }
    parts.append(Substring(name))
    let prefix = urlPrefix.hasSuffix("/") ? String(urlPrefix.dropLast()) : urlPrefix
    return prefix + "/" + parts.joined(separator: "/")
  }

  private var notFound: HTTPResponse { .text(.notFound, "not found") }

  // MARK: Cache

  private func entry(for relative: String) -> Entry? {
    guard !relative.isEmpty else { return nil }
    let now = EventLoopClock.seconds()
    if let cached = entries.withLock({ $0[relative] }), cached.checkedAt.load(ordering: .relaxed) == now {
      return cached
    }
    let candidate = root + relative
    guard let real = Self.realPath(candidate), real.hasPrefix(root) else {
      entries.withLock { $0[relative] = nil }
      return nil
    }
    var st = stat()
    guard stat(real, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
      entries.withLock { $0[relative] = nil }
      return nil
    }
    let size = Int(st.st_size)
    let mtime = Int(st.st_mtim.tv_sec)
    let mtimeNs = Int(st.st_mtim.tv_nsec)
    let previous = entries.withLock { $0[relative] }
    if let kept = previous, kept.size == size, kept.mtimeSeconds == mtime, kept.mtimeNanoseconds == mtimeNs,
      kept.realPath == real
    {
      kept.checkedAt.store(now, ordering: .relaxed)
      return kept
    }
    guard let bytes = Self.readFile(real, limit: Int.max) else { return nil }
    let hash = Self.contentHash(bytes)
    let etag = "\"\(hash)\(String(bytes.count, radix: 16))\""
    var headers: HTTPHeaders = [
      "Content-Type": MediaTypes.type(forFileName: Substring(relative)), "ETag": etag,
      "Last-Modified": HTTPDate.format(epochSeconds: mtime),
    ]
    var immutableHeaders = headers
    headers.add(name: "Cache-Control", value: cacheControl)
    immutableHeaders.add(name: "Cache-Control", value: immutableCacheControl)
    let entry = Entry(
      realPath: real, size: size, mtimeSeconds: mtime, mtimeNanoseconds: mtimeNs, hash: hash, etag: etag,
      bytes: bytes.count <= memoryCacheMaxFileBytes ? bytes : nil, headers: headers,
      immutableHeaders: immutableHeaders, checkedAt: now)
    entries.withLock { $0[relative] = entry }
    return entry
  }

  private func isNotModified(_ headers: HTTPHeaders, _ entry: Entry) -> Bool {
    if let match = headers["If-None-Match"] {
      for tag in match.split(separator: ",") {
        var t = tag.trimmingCharacters(in: " \t")
        if t == "*" { return true }
        if t.hasPrefix("W/") { t = t.dropFirst(2) }
        if t == entry.etag { return true }
      }
      return false
    }
    if let since = headers["If-Modified-Since"], let date = HTTPDate.parse(since) {
      return entry.mtimeSeconds <= date
    }
    return false
  }
}

extension Substring {
  fileprivate func trimmingCharacters(in set: String) -> Substring {
    var s = self
    while let f = s.first, set.contains(f) { s = s.dropFirst() }
    while let l = s.last, set.contains(l) { s = s.dropLast() }
    return s
  }
}

/// Whole seconds of the monotonic clock, used to revalidate cached files at most once a second.
enum EventLoopClock {
  static func seconds() -> Int {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec
  }
}
