/// Hard bounds that keep a hostile or broken server from exhausting memory or CPU in `RESPParser`.
public struct RESPParserLimits: Sendable, Equatable {
  /// The longest header or simple-string line, without its CRLF.
  public var maxLineLength: Int
  /// The longest bulk string payload.
  public var maxBulkLength: Int
  /// The most elements one array may announce.
  public var maxArrayLength: Int
  /// The deepest nesting of arrays.
  public var maxDepth: Int
  /// The most values (of any type, at any depth) in one top-level reply.
  public var maxReplyElements: Int
  /// The most line and payload bytes in one top-level reply.
  public var maxReplyBytes: Int

  /// Defaults that fit a cache of pages (64 MiB values, a million elements, depth 32).
  public init(
    maxLineLength: Int = 64 * 1024, maxBulkLength: Int = 64 << 20, maxArrayLength: Int = 1 << 20,
    maxDepth: Int = 32, maxReplyElements: Int = 1 << 20, maxReplyBytes: Int = 256 << 20
  ) {
    self.maxLineLength = maxLineLength
    self.maxBulkLength = maxBulkLength
    self.maxArrayLength = maxArrayLength
    self.maxDepth = maxDepth
    self.maxReplyElements = maxReplyElements
    self.maxReplyBytes = maxReplyBytes
  }
}
