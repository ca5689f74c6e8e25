import CZlib

/// One zlib stream (deflate or inflate) at a fixed heap address.
///
/// zlib keeps a pointer back to the `z_stream` it was initialised with and refuses a stream that
/// moved, so the struct lives in its own allocation for the life of this object.
final class ZStream {
  enum Kind { case deflate, inflate }

  let kind: Kind
  /// Owned by this object: allocated and initialised in `init`, torn down and freed in `deinit`,
  /// never handed out beyond a call into zlib.
  let raw: UnsafeMutablePointer<z_stream>

  /// A gzip deflate stream at `level` (0...9).
  init(deflateLevel level: Int) throws(CompressionError) {
    guard (0...9).contains(level) else { throw .invalidLevel(level) }
    kind = .deflate
    raw = .allocate(capacity: 1)
    raw.initialize(to: z_stream())
    let code = czlib_deflate_init_gzip(raw, Int32(level))
    guard code == Z_OK else {
      raw.deallocate()
      throw .zlib(code: code)
    }
  }

  /// A gzip inflate stream.
  init(inflate: Void) throws(CompressionError) {
    kind = .inflate
    raw = .allocate(capacity: 1)
    raw.initialize(to: z_stream())
    let code = czlib_inflate_init_gzip(raw)
    guard code == Z_OK else {
      raw.deallocate()
      throw .zlib(code: code)
    }
  }

  deinit {
    switch kind {
    case .deflate: deflateEnd(raw)
    case .inflate: inflateEnd(raw)
    }
    raw.deallocate()
  }

  /// Deflates `input` with `flush`, appending to `output`; throws when `output` would pass `limit`.
  ///
  /// For `Z_FINISH` it runs until the trailer is written; otherwise until zlib has taken all the
  /// input and emitted everything the flush mode asks for.
  func deflate(_ input: UnsafeRawBufferPointer, flush: Int32, into output: inout [UInt8], limit: Int)
    throws(CompressionError)
  {
    // zlib counts input in 32-bit units; larger inputs go in slices, flushing only after the last.
    let slice = 1 << 30
    var offset = 0
    repeat {
      let count = min(slice, input.count - offset)
      let last = offset + count == input.count
      // zlib only reads through next_in (the pointer is mutable in its API for historic reasons);
      // the caller's buffer outlives this call, and zlib drops the pointer before we return.
      raw.pointee.next_in = UnsafeMutablePointer(
        mutating: input.baseAddress.map { ($0 + offset).assumingMemoryBound(to: Bytef.self) })
      raw.pointee.avail_in = UInt32(count)
      try drainDeflate(flush: last ? flush : Z_NO_FLUSH, into: &output, limit: limit)
      offset += count
    } while offset < input.count
    raw.pointee.next_in = nil
  }

  private func drainDeflate(flush: Int32, into output: inout [UInt8], limit: Int) throws(CompressionError) {
    while true {
      // First round: zlib's own bound for the pending input, plus room for a flush marker.
      let room = Int(deflateBound(raw, uLong(raw.pointee.avail_in))) + 64
      var code: Int32 = Z_OK
      let chunk = produce(capacity: room) { code = CZlib.deflate(raw, flush) }
      if code == Z_STREAM_ERROR { throw .zlib(code: code) }
      try append(chunk, to: &output, limit: limit)
      if flush == Z_FINISH {
        if code == Z_STREAM_END { return }
      } else if raw.pointee.avail_out != 0 {
        // Room was left over, so zlib took all input and emitted everything the flush asked for.
        return
      }
    }
  }

  /// Inflates all of `input` into `output`, member after member, refusing to pass `limit`.
  func inflate(_ input: UnsafeRawBufferPointer, into output: inout [UInt8], limit: Int)
    throws(CompressionError)
  {
    guard input.count <= Int(UInt32.max) else { throw .outputLimitExceeded(limit: limit) }
    // As in `deflate`: zlib reads the caller's live buffer and keeps no pointer after we return.
    raw.pointee.next_in = UnsafeMutablePointer(
      mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
    raw.pointee.avail_in = UInt32(input.count)
    defer { raw.pointee.next_in = nil }
    var round = min(max(input.count * 4, 4096), 1 << 20)
    while true {
      // One byte past the limit tells "exactly at the limit" from "more to come".
      let left = limit - output.count
      let room = left < round ? left + 1 : round
      var code: Int32 = Z_OK
      let chunk = produce(capacity: room) { code = CZlib.inflate(raw, Z_NO_FLUSH) }
      try append(chunk, to: &output, limit: limit)
      switch code {
      case Z_STREAM_END:
        if raw.pointee.avail_in == 0 { return }
        // Another gzip member follows (gzip allows concatenation).
        let reset = inflateReset(raw)
        guard reset == Z_OK else { throw .zlib(code: reset) }
      case Z_OK:
        break
      case Z_BUF_ERROR:
        // No progress possible: input is used up mid-stream (output room is never zero here).
        throw .truncatedInput
      case Z_DATA_ERROR, Z_NEED_DICT, Z_STREAM_ERROR:
        throw .corruptInput
      default:
        throw .zlib(code: code)
      }
      if raw.pointee.avail_in == 0 && code == Z_OK && raw.pointee.avail_out != 0 {
        throw .truncatedInput
      }
      round = min(round * 2, 1 << 22)
    }
  }

  /// Runs `step` with zlib's output pointed at a fresh array of `capacity` bytes, and keeps what it wrote.
  private func produce(capacity: Int, _ step: () -> Void) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
      // The buffer is this array's own storage, valid for this closure; zlib writes at most
      // avail_out bytes into it and the pointer is cleared before the closure returns.
      raw.pointee.next_out = buffer.baseAddress
      raw.pointee.avail_out = UInt32(buffer.count)
      step()
      count = buffer.count - Int(raw.pointee.avail_out)
      raw.pointee.next_out = nil
    }
  }

  private func append(_ chunk: [UInt8], to output: inout [UInt8], limit: Int) throws(CompressionError) {
    guard chunk.count <= limit - output.count else { throw .outputLimitExceeded(limit: limit) }
    if output.isEmpty { output = chunk } else { output.append(contentsOf: chunk) }
  }
}
