import CZlib

/// The whole of `bytes` as one gzip member at `level` (0 stores, 1 is fastest, 9 is smallest).
public func gzip(_ bytes: [UInt8], level: Int = 6) throws(CompressionError) -> [UInt8] {
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
