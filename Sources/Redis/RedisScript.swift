import Digests

/// A Lua script and its SHA-1, as `EVALSHA` names it. Create it once and reuse it.
public struct RedisScript: Sendable, Hashable {
  /// The Lua source.
  public let source: String
  /// The lowercase hex SHA-1 of the source.
  public let sha1: String

  /// A script with its digest computed locally, so no `SCRIPT LOAD` round trip is needed.
  public init(_ source: String) {
    self.source = source
    self.sha1 = SHA1.hex(Array(source.utf8))
  }
}
