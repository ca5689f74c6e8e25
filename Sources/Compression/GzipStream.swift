import CZlib

/// A gzip compressor fed chunk by chunk, for bodies sent as they are produced.
///
/// Each `compress(_:flush:)` returns the bytes ready to send; with `flush: true` they decode to
/// everything given so far (a sync flush), so a streamed page reaches the browser chunk by chunk.
/// Not thread-safe: one owner feeds it.
public final class GzipStream {
  private let stream: ZStream
  private let outputLimit: Int
  private var written = 0
  private var finished = false

  /// A compressor at `level` (0...9) that refuses to emit more than `outputLimit` bytes in total.
  public init(level: Int = 6, outputLimit: Int = .max) throws(CompressionError) {
    stream = try ZStream(deflateLevel: level)
    self.outputLimit = outputLimit
  }

  /// Compresses `chunk`; with `flush`, the result ends on a byte boundary the reader can decode up to.
  public func compress(_ chunk: [UInt8], flush: Bool = true) throws(CompressionError) -> [UInt8] {
    try run(chunk, mode: flush ? Z_SYNC_FLUSH : Z_NO_FLUSH)
  }

  /// Compresses `chunk` (possibly empty) and writes the gzip trailer; the stream is then closed.
  public func finish(_ chunk: [UInt8] = []) throws(CompressionError) -> [UInt8] {
    let bytes = try run(chunk, mode: Z_FINISH)
    finished = true
    return bytes
  }

  private func run(_ chunk: [UInt8], mode: Int32) throws(CompressionError) -> [UInt8] {
    guard !finished else { throw .alreadyFinished }
    var output: [UInt8] = []
    var failure: CompressionError?
    let limit = outputLimit - written
    chunk.withUnsafeBytes { input in
      do throws(CompressionError) {
        try stream.deflate(input, flush: mode, into: &output, limit: limit)
      } catch { failure = error }
    }
    if let failure {
      finished = true
      throw failure
    }
    written += output.count
    return output
  }
}
