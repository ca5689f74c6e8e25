import Compression
import HTTP
import HTTPServer

extension GitHubDouble {
  /// Frames an API answer the way api.github.com does (when `realisticWire` is on): an
  /// `X-GitHub-Request-Id`, gzip when the request accepts it, and a chunked body without
  /// `Content-Length`. Avatars are left alone: their CDN sends plain fixed-length images.
  func wire(_ response: HTTPResponse, _ route: Route, _ request: HTTPRequest, _ context: RequestContext)
    -> HTTPResponse
  {
    guard configuration.realisticWire, route.endpoint != .avatar else { return response }
    var r = response
    if r.headers["X-GitHub-Request-Id"] == nil {
      r.headers.add(name: "X-GitHub-Request-Id", value: Self.githubRequestID(context.requestID))
    }
    guard case .bytes(var body) = r.body, !body.isEmpty, r.headers["Content-Encoding"] == nil,
      r.headers["Content-Type"]?.hasPrefix("application/json") == true
    else { return r }
    if ContentNegotiation.acceptsGzip(request.headers), let zipped = try? gzip(body, level: 6) {
      body = zipped
      r.headers.add(name: "Content-Encoding", value: "gzip")
    }
    let size = 16384
    r.body = Self.streamed(
      stride(from: 0, to: body.count, by: size).map { Array(body[$0..<min($0 + size, body.count)]) },
      pause: nil)
    return r
  }

  /// An id shaped like GitHub's (`C5A8:2D3A7F:1B0E5C4:1B7B9F1:65A1B2C3`), derived from the server's own.
  static func githubRequestID(_ id: String) -> String {
    let h = SplitMix64.mix(stableHash(id))
    let parts = [
      (h >> 48) & 0xFFFF, (h >> 24) & 0xFFFFFF, h & 0xFFFFFF, SplitMix64.mix(h) & 0xFFFFFFF, h >> 32,
    ]
    return parts.map { String($0, radix: 16, uppercase: true) }.joined(separator: ":")
  }
}
