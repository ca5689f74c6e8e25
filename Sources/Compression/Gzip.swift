import CLibdeflate
import CZlib

/// The whole of `bytes` as one gzip member at `level` (0 stores, 1 is fastest, 9 is smallest).
///
/// Whole buffers go through libdeflate, which compresses them several times faster than zlib at a
/// similar size; streams (`GzipStream`) need zlib.
public func gzip(_ bytes: [UInt8], level: Int = 6) throws(CompressionError) -> [UInt8] {
  guard (0...9).contains(level) else { throw .invalidLevel(level) }
  let packed = Compressors.shared.with(level: level) { compressor -> [UInt8] in
    let bound = libdeflate_gzip_compress_bound(compressor, bytes.count)
    return [UInt8](unsafeUninitializedCapacity: bound) { output, count in
      // libdeflate reads `bytes` and writes at most `bound` bytes into this array's own storage,
      // both valid for the duration of the call; it keeps neither pointer.
      count = bytes.withUnsafeBytes { input in
        libdeflate_gzip_compress(compressor, input.baseAddress, input.count, output.baseAddress, output.count)
      }
    }
  }
  // A zero size means the bound was too small, which libdeflate rules out; zlib covers it anyway.
  if let packed, !packed.isEmpty { return packed }
  return try zlibGzip(bytes, level: level)
}

/// The same through zlib, when libdeflate cannot allocate a compressor.
func zlibGzip(_ bytes: [UInt8], level: Int) throws(CompressionError) -> [UInt8] {
  let stream = try ZStream(deflateLevel: level)
  var output: [UInt8] = []
  var failure: CompressionError?
  bytes.withUnsafeBytes { input in
    do throws(CompressionError) {
      try stream.deflate(input, flush: Z_FINISH, into: &output, limit: .max)
    } catch { failure = error }
  }
  if let failure { throw failure }
  return output
}

/// The bytes a gzip stream (one or more members) holds, refusing to produce more than `limit` bytes.
///
/// Always pass a limit sized to what the caller can hold: a few kilobytes of gzip can expand to
/// gigabytes.
public func gunzip(_ bytes: [UInt8], limit: Int) throws(CompressionError) -> [UInt8] {
  let stream = try ZStream(inflate: ())
  var output: [UInt8] = []
  var failure: CompressionError?
  bytes.withUnsafeBytes { input in
    do throws(CompressionError) {
      try stream.inflate(input, into: &output, limit: max(0, limit))
    } catch { failure = error }
  }
  if let failure { throw failure }
  return output
}
