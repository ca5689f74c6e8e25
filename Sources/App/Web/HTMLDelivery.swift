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

  /// Rewrites `response`, an HTML answer (the pipeline's `delivery` step checked), for `request`.
  /// An answer already encoded passes untouched.
  static func apply(to response: inout HTTPResponse, for request: HTTPRequest) {
    guard !response.headers.contains(name: "Content-Encoding") else { return }
    let gzipOK = ContentNegotiation.acceptsGzip(request.headers)
    addVary(to: &response)
    switch response.body {
    case .bytes(let body):
      if response.status == .ok {
        let compresses = gzipOK && body.count >= minimumBytes
        response.replaceOrAddHeader(
          name: "ETag", value: ContentNegotiation.entityTag(for: body, gzip: compresses))
        if Validators.apply(to: &response, for: request, keepContentType: true) { return }
      }
      guard gzipOK, body.count >= minimumBytes, let packed = try? gzip(body, level: level) else { return }
      response.replaceOrAddHeader(name: "Content-Encoding", value: "gzip")
      response.body = .bytes(packed)
    case .stream(let inner):
      guard gzipOK, response.status != .notModified, let compressor = try? GzipChunks(level: level) else {
        return
      }
      response.replaceOrAddHeader(name: "Content-Encoding", value: "gzip")
      response.body = .stream(BodyPipe.through(inner, compressor))
    }
  }

  /// `Vary: Accept-Encoding` added to whatever the route already varies on (headers are left alone
  /// when they have it: `SecurityHeaders.html` does).
  private static func addVary(to response: inout HTTPResponse) {
    guard !response.headers.containsToken("Accept-Encoding", in: "Vary") else { return }
    let vary = response.headers["Vary"].map { $0 + ", Accept-Encoding" } ?? "Accept-Encoding"
    response.replaceOrAddHeader(name: "Vary", value: vary)
  }
}
