/// Why compressing or inflating failed.
public enum CompressionError: Error, Sendable, Equatable {
  /// The output would grow past the bound the caller set (for inflate: a likely compression bomb).
  case outputLimitExceeded(limit: Int)
  /// The input is not a well-formed gzip stream (bad header, bad data or a checksum mismatch).
  case corruptInput
  /// The input ended before the gzip trailer.
  case truncatedInput
  /// The level is outside `0...9`.
  case invalidLevel(Int)
  /// The streaming compressor was used after `finish()`.
  case alreadyFinished
  /// zlib failed for another reason, such as no memory for its state; the code is zlib's.
  case zlib(code: Int32)
}
