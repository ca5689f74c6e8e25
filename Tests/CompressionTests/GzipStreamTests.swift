import CZlib
import TestSupport
import Testing

@testable import Compression

@Suite("Gzip stream", .timeLimit(.minutes(2)))
struct GzipStreamTests {
  /// Inflates whatever a reader has received so far, as a browser does with a streamed body.
  final class PartialReader {
    private var stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private(set) var decoded: [UInt8] = []

    init() {
      stream.initialize(to: z_stream())
      precondition(czlib_inflate_init_gzip(stream) == Z_OK)
    }

    deinit {
      inflateEnd(stream)
      stream.deallocate()
    }

    /// Feeds `bytes`; returns zlib's last code.
    @discardableResult
    func feed(_ bytes: [UInt8]) -> Int32 {
      var input = bytes
      var code: Int32 = Z_OK
      // Both buffers are local arrays alive for the closures; zlib keeps no pointer after inflate returns.
      input.withUnsafeMutableBufferPointer { inBuf in
        stream.pointee.next_in = inBuf.baseAddress
        stream.pointee.avail_in = UInt32(inBuf.count)
        repeat {
          var out = [UInt8](repeating: 0, count: 4096)
          let produced = out.withUnsafeMutableBufferPointer { outBuf in
            stream.pointee.next_out = outBuf.baseAddress
            stream.pointee.avail_out = UInt32(outBuf.count)
            code = inflate(stream, Z_SYNC_FLUSH)
            return outBuf.count - Int(stream.pointee.avail_out)
          }
          decoded += out[..<produced]
        } while stream.pointee.avail_in > 0 && code == Z_OK
        stream.pointee.next_in = nil
      }
      return code
    }
  }

  @Test("after each flushed chunk the reader decodes exactly what was sent so far")
  func flushBoundaries() throws {
    let chunks = ["<!doctype html><head>", "", String(repeating: "<li>card</li>", count: 300), "</html>"]
      .map { Array($0.utf8) }
    let compressor = try GzipStream(level: 6)
    let reader = PartialReader()
    var sent: [UInt8] = []
    var wire: [UInt8] = []
    for chunk in chunks {
      let out = try compressor.compress(chunk, flush: true)
      // An empty chunk right after a flush has nothing to add.
      expectEqual(out.isEmpty, chunk.isEmpty)
      sent += chunk
      wire += out
      reader.feed(out)
      expectEqual(reader.decoded, sent)
    }
    let tail = try compressor.finish()
    expectEqual(reader.feed(tail), Z_STREAM_END)
    wire += tail
    try expectEqual(gunzip(wire, limit: 1 << 20), sent)
  }

  @Test("unflushed chunks still decode in full after finish, with the last chunk given to finish")
  func unflushed() throws {
    let compressor = try GzipStream(level: 1)
    var wire: [UInt8] = []
    for i in 0..<100 { wire += try compressor.compress(Array("line \(i)\n".utf8), flush: false) }
    wire += try compressor.finish(Array("end".utf8))
    let expected = Array(((0..<100).map { "line \($0)\n" }.joined() + "end").utf8)
    try expectEqual(gunzip(wire, limit: 1 << 20), expected)
  }

  @Test("a stream that only finishes is an empty gzip member")
  func emptyStream() throws {
    let wire = try GzipStream().finish()
    try expectEqual(gunzip(wire, limit: 0), [])
  }

  @Test("the output bound stops the stream, and a finished stream refuses more input")
  func bound() throws {
    var generator = SeededGenerator(state: 3)
    let noise = (0..<10_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    let compressor = try GzipStream(level: 6, outputLimit: 5_000)
    #expect(throws: CompressionError.outputLimitExceeded(limit: 5_000)) {
      try compressor.compress(noise, flush: true)
    }
    #expect(throws: CompressionError.alreadyFinished) { try compressor.compress([1]) }
    let done = try GzipStream()
    _ = try done.finish()
    #expect(throws: CompressionError.alreadyFinished) { try done.finish() }
  }
}

@Suite("Gunzip stream", .timeLimit(.minutes(2)))
struct GunzipStreamTests {
  @Test("pieces of any size decode to the whole, and the end of the member is seen")
  func pieces() throws {
    let text = Array(String(repeating: "<li>streamed card</li>\n", count: 500).utf8)
    let wire = try gzip(text)
    for size in [1, 7, 100, wire.count] {
      let reader = try GunzipStream(outputLimit: text.count)
      var decoded: [UInt8] = []
      var offset = 0
      while offset < wire.count {
        let end = min(offset + size, wire.count)
        decoded += try reader.decode(Array(wire[offset..<end]))
        offset = end
      }
      expectEqual(decoded, text)
      expectTrue(reader.isFinished)
    }
  }

  @Test("a flushed chunk decodes before the stream ends; a bomb stops at the limit")
  func flushedAndBounded() throws {
    let writer = try GzipStream()
    let reader = try GunzipStream(outputLimit: 100_000)
    let head = Array("<!doctype html><head>".utf8)
    try expectEqual(reader.decode(writer.compress(head, flush: true)), head)
    expectTrue(!reader.isFinished)
    let zeros = [UInt8](repeating: 0, count: 200_000)
    #expect(throws: CompressionError.outputLimitExceeded(limit: 100_000 - head.count)) {
      try reader.decode(writer.compress(zeros, flush: true))
    }
  }
}
