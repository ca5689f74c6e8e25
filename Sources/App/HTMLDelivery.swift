import Compression
import HTTP
import HTTPServer

/// Validators and gzip for the app's HTML answers: a whole body gets an ETag (per encoding) and may
/// become a 304; a body over `minimumBytes` is gzipped when the client accepts it; a streamed page is
/// gzipped chunk by chunk, each chunk flushed so that the browser can show it at once.
enum HTMLDelivery {
  /// Below this, gzip's header and the CPU cost more than the bytes saved.
  static let minimumBytes = 1024
  /// The cheapest level: a 20-card fragment shrinks about eightfold even so, and level 6 would cost
  /// several times the CPU for some 15% fewer bytes (measured with zlib on a fragment).
  static let level = 1

  /// Rewrites `response` for `request` when it is HTML; anything else passes untouched.
  static func apply(to response: inout HTTPResponse, for request: HTTPRequest) {
    guard let type = response.headers["Content-Type"], type.hasPrefix("text/html") else { return }
    let gzipOK = ContentNegotiation.acceptsGzip(request.headers)
    addVary(to: &response)
    switch response.body {
    case .bytes(let body):
      if response.status == .ok {
        let compresses = gzipOK && body.count >= minimumBytes
        let etag = ContentNegotiation.entityTag(for: body, gzip: compresses)
        response.replaceOrAddHeader(name: "ETag", value: etag)
        if ContentNegotiation.ifNoneMatch(request.headers, matches: etag) == true {
          response.status = .notModified
          response.body = .empty
          return
        }
      }
      guard gzipOK, body.count >= minimumBytes, let packed = try? gzip(body, level: level) else { return }
      response.replaceOrAddHeader(name: "Content-Encoding", value: "gzip")
      response.body = .bytes(packed)
    case .stream(let inner):
      guard gzipOK, response.status != .notModified else { return }
      response.replaceOrAddHeader(name: "Content-Encoding", value: "gzip")
      response.body = .stream(gzipped(inner))
    }
  }

  /// `Vary: Accept-Encoding` added to whatever the route already varies on (headers are left alone
  /// when they have it: `SecurityHeaders.html` does).
  private static func addVary(to response: inout HTTPResponse) {
    guard !response.headers.containsToken("Accept-Encoding", in: "Vary") else { return }
    let vary = response.headers["Vary"].map { $0 + ", Accept-Encoding" } ?? "Accept-Encoding"
    response.replaceOrAddHeader(name: "Vary", value: vary)
  }

  /// The stream gzipped, one sync-flushed piece per chunk, the trailer after the last.
  static func gzipped(_ inner: AsyncThrowingStream<[UInt8], any Error>) -> AsyncThrowingStream<
    [UInt8], any Error
  > {
    let (outer, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
    let task = Task {
      do {
        let compressor = try GzipStream(level: level)
        for try await chunk in inner {
          let piece = try compressor.compress(chunk, flush: true)
          if !piece.isEmpty { continuation.yield(piece) }
        }
        continuation.yield(try compressor.finish())
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return outer
  }
}
