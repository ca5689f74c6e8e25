import Clocks
import Compression
import Glibc
import HTTP
import Sockets
import Synchronization

/// Static files confined to one root folder, with validators, 304s, an in-memory cache for small files
/// and a gzip form of compressible ones made once per file version.
///
/// Each cached file keeps its answers (200 and 304, plain and immutable, per encoding) fully built with
/// their headers already serialised, so a hit costs two lookups and a copy of the head bytes.
public final class StaticFiles: Sendable {
  /// One encoding of a file: its tag and its ready answers. A class, so choosing one costs a
  /// single retain rather than one per buffer of four answers.
  final class Variant: Sendable {
    let etag: String
    let ok: HTTPResponse
    let okImmutable: HTTPResponse
    let notModified: HTTPResponse
    let notModifiedImmutable: HTTPResponse

    /// The 200 and 304 answers, plain and immutable, with `headers` and each its `Cache-Control`,
    /// heads serialised once. `body` is empty for a file read per request.
    init(
      etag: String, headers: HTTPHeaders, body: [UInt8], cacheControl: String, immutableCacheControl: String
    ) {
      func answer(_ status: HTTPStatus, _ control: String, _ body: [UInt8]) -> HTTPResponse {
        var h = headers
        h.add(name: "Cache-Control", value: control)
        var response = HTTPResponse(status: status, headers: h, body: .bytes(body))
        response.preserializeHeaders()
        return response
      }
      self.etag = etag
      ok = answer(.ok, cacheControl, body)
      okImmutable = answer(.ok, immutableCacheControl, body)
      notModified = answer(.notModified, cacheControl, [])
      notModifiedImmutable = answer(.notModified, immutableCacheControl, [])
    }
  }

  /// The version of a file on disk an entry was built from; any change of it rebuilds the entry.
  struct FileVersion: Equatable {
    let realPath: String
    var size: Int
    let mtimeSeconds: Int
    let mtimeNanoseconds: Int
  }

  /// What is known about one file; rebuilt when its version changes. A class, so that handing it
  /// out of the cache costs one retain rather than one per field.
  final class Entry: Sendable {
    let version: FileVersion
    let hash: String
    /// In memory when small enough; otherwise `ok` has an empty body and the file is read per request,
    /// off the loop thread.
    let inMemory: Bool
    let identity: Variant
    /// The gzip form, when the type compresses and the result is smaller.
    let gzip: Variant?
    /// Monotonic second of the last stat; updated in place by whichever request revalidates.
    let checkedAt: Atomic<Int>

    init(
      version: FileVersion, hash: String, inMemory: Bool, identity: Variant, gzip: Variant?, checkedAt: Int
    ) {
      self.version = version
      self.hash = hash
      self.inMemory = inMemory
      self.identity = identity
      self.gzip = gzip
      self.checkedAt = Atomic(checkedAt)
    }
  }

  /// A request path already resolved to a file: the relative path, and the hash its name carried.
  struct Resolved: Sendable {
    let relative: String
    let urlHash: String?
  }

  private let root: String
  private let cacheControl: String
  private let immutableCacheControl: String
  private let memoryCacheMaxFileBytes: Int
  private let extraHeaders: HTTPHeaders
  /// Times the once-a-second revalidation of cached files.
  private let time: TimeSource
  private let entries = Mutex<[String: Entry]>([:])
  /// Raw request paths, per URL prefix, already resolved, so that repeat requests skip decoding and
  /// normalising (and allocate nothing: the lookup is by the request's own substring). Only paths of
  /// existing files get in; it is bounded.
  private let resolved = Mutex<[String: [Substring: Resolved]]>([:])
  private static let resolvedLimit = 4096
  /// Smaller files are not worth a gzip form.
  static let gzipMinimumBytes = 256

  /// Serves files below `root`, which must be an existing folder (else `StaticFilesError`). `headers`
  /// are added to every file answer (for example security headers), serialised once with the rest.
  /// A cached file is checked again on disk once per second of `time`'s monotonic clock.
  public init(
    root: String, cacheControl: String = "max-age=300",
    immutableCacheControl: String = "max-age=31536000, immutable",
    memoryCacheMaxFileBytes: Int = 256 * 1024, headers: HTTPHeaders = [:], time: TimeSource
  ) throws(StaticFilesError) {
    guard let resolved = StaticFiles.realPath(root) else {
      throw .missingRoot(root)
    }
    var st = stat()
    guard stat(resolved, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else {
      throw .notAFolder(root)
    }
    self.root = resolved.hasSuffix("/") ? resolved : resolved + "/"
    self.cacheControl = cacheControl
    self.immutableCacheControl = immutableCacheControl
    self.memoryCacheMaxFileBytes = memoryCacheMaxFileBytes
    self.extraHeaders = headers
    self.time = time
  }

  /// Serves `request.path` (percent-decoded, normalised) below root; 404 for anything outside,
  /// ETag/Last-Modified/304, content type by extension, gzip when the client accepts it.
  /// `urlPrefix` is stripped first (e.g. "/static").
  public func response(for request: HTTPRequest, urlPrefix: String = "") async -> HTTPResponse {
    guard request.method == .get || request.method == .head else {
      return HTTPError(.methodNotAllowed, "method not allowed", headers: ["Allow": "GET, HEAD"]).response
    }
    let path = request.path
    var immutable = false
    var found: Entry?
    if let known = resolved.withLock({ $0[urlPrefix]?[path] }) {
      found = await entry(for: known.relative)
      if let hash = known.urlHash {
        immutable = true
        if found?.hash != hash { found = nil }
      }
    } else {
      guard let relative = relativePath(path, urlPrefix: urlPrefix) else { return notFound }
      var plainPath = relative
      var urlHash: String?
      if let (plain, hash) = Self.splitHashedName(relative), let entry = await entry(for: plain),
        entry.hash == hash
      {
        found = entry
        immutable = true
        plainPath = plain
        urlHash = hash
      } else {
        found = await entry(for: relative)
      }
      if found != nil {
        let key = String(path)[...]
        let value = Resolved(relative: plainPath, urlHash: urlHash)
        resolved.withLock {
          if $0.values.reduce(0, { $0 + $1.count }) >= Self.resolvedLimit { $0.removeAll() }
          $0[urlPrefix, default: [:]][key] = value
        }
      }
    }
    guard let entry = found else { return notFound }
    var variant = entry.identity
    if let gzip = entry.gzip, ContentNegotiation.acceptsGzip(request.headers) { variant = gzip }
    if isNotModified(request.headers, etag: variant.etag, entry) {
      return immutable ? variant.notModifiedImmutable : variant.notModified
    }
    var response = immutable ? variant.okImmutable : variant.ok
    if !entry.inMemory {
      let path = entry.version.realPath
      guard let bytes = await Task.detached(operation: { Self.readFile(path) }).value else { return notFound }
      response.body = .bytes(bytes)
    }
    return response
  }

  /// Content-hashed URL for a file, e.g. "app.css" -> "/static/app.3f2a9c1b.css"; a file name of the form
  /// name.<8 hex>.ext resolves to name.ext and gets immutableCacheControl (if the hash matches).
  public func hashedPath(for relativePath: String, urlPrefix: String) -> String? {
    guard let normalised = Self.normalise(relativePath), let entry = loadEntry(for: normalised) else {
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

  /// The entry checked this second, without I/O; otherwise it is revalidated (and a changed file read)
  /// off the loop thread, so that a big file never blocks the loop.
  private func entry(for relative: String) async -> Entry? {
    if let cached = checkedEntry(for: relative) { return cached }
    return await Task.detached(operation: { self.loadEntry(for: relative) }).value
  }

  private func checkedEntry(for relative: String) -> Entry? {
    guard let cached = entries.withLock({ $0[relative] }),
      cached.checkedAt.load(ordering: .relaxed) == clockSecond()
    else { return nil }
    return cached
  }

  /// The entry for `relative` with blocking I/O where needed (startup paths use it directly).
  private func loadEntry(for relative: String) -> Entry? {
    guard !relative.isEmpty else { return nil }
    let now = clockSecond()
    if let cached = checkedEntry(for: relative) { return cached }
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
    var version = FileVersion(
      realPath: real, size: Int(st.st_size), mtimeSeconds: Int(st.st_mtim.tv_sec),
      mtimeNanoseconds: Int(st.st_mtim.tv_nsec))
    if let kept = entries.withLock({ $0[relative] }), kept.version == version {
      kept.checkedAt.store(now, ordering: .relaxed)
      return kept
    }
    guard let bytes = Self.readFile(real) else { return nil }
    // The size read, not the one stat saw, so a file that changed in between is read again next time.
    version.size = bytes.count
    let entry = makeEntry(relative: relative, version: version, bytes: bytes, now: now)
    entries.withLock { $0[relative] = entry }
    return entry
  }

  /// Builds every answer for one version of a file, gzip form included, once.
  private func makeEntry(relative: String, version: FileVersion, bytes: [UInt8], now: Int) -> Entry {
    // The name's fingerprint, and the one entity-tag hash every answer uses.
    let hash = Self.contentHash(bytes)
    let etag = ContentNegotiation.entityTag(for: bytes)
    let type = MediaTypes.type(forFileName: Substring(relative))
    let inMemory = bytes.count <= memoryCacheMaxFileBytes
    var packed: [UInt8]?
    if inMemory, bytes.count >= Self.gzipMinimumBytes, MediaTypes.compresses(type),
      let gzipped = try? gzip(bytes, level: 9), gzipped.count < bytes.count
    {
      packed = gzipped
    }
    let lastModified = HTTPDate.format(epochSeconds: version.mtimeSeconds)
    func variant(_ etag: String, _ body: [UInt8], encoding: String?) -> Variant {
      var headers: HTTPHeaders = ["Content-Type": type, "ETag": etag, "Last-Modified": lastModified]
      if let encoding { headers.add(name: "Content-Encoding", value: encoding) }
      if packed != nil { headers.add(name: "Vary", value: "Accept-Encoding") }
      for field in extraHeaders { headers.add(name: field.name, value: field.value) }
      return Variant(
        etag: etag, headers: headers, body: inMemory ? body : [], cacheControl: cacheControl,
        immutableCacheControl: immutableCacheControl)
    }
    return Entry(
      version: version, hash: hash, inMemory: inMemory, identity: variant(etag, bytes, encoding: nil),
      gzip: packed.map { variant(ContentNegotiation.gzipETag(etag), $0, encoding: "gzip") }, checkedAt: now)
  }

  /// Whole seconds of the monotonic clock: cached files are revalidated at most once a second.
  private func clockSecond() -> Int { time.monotonicMilliseconds() / 1000 }

  private func isNotModified(_ headers: HTTPHeaders, etag: String, _ entry: Entry) -> Bool {
    if let matches = ContentNegotiation.ifNoneMatch(headers, matches: etag) { return matches }
    if let since = headers["If-Modified-Since"], let date = HTTPDate.parse(since) {
      return entry.version.mtimeSeconds <= date
    }
    return false
  }
}
