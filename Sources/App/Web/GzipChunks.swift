import Compression
import HTTPServer

/// gzip of a streamed body: one sync-flushed piece per chunk, so that the browser can show each at
/// once, and the trailer after the last.
struct GzipChunks: BodyTransform {
  private let stream: GzipStream

  /// A compressor at `level`.
  init(level: Int) throws(CompressionError) { stream = try GzipStream(level: level) }

  func transform(_ chunk: [UInt8]) throws -> [UInt8] { try stream.compress(chunk, flush: true) }

  func finish() throws -> [UInt8]? { try stream.finish() }
}
