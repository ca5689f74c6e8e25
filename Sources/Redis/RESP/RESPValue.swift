/// One RESP2 reply, as the server sent it.
///
/// A null bulk string (`$-1`) and a null array (`*-1`) both arrive as `.null`, because no Redis
/// command gives them different meanings.
public enum RESPValue: Sendable, Hashable {
  /// `+OK`: a short status text.
  case simpleString(String)
  /// `-ERR …`: an error reply; the text starts with its code, such as `ERR`, `WRONGTYPE` or `NOSCRIPT`.
  case error(String)
  /// `:42`.
  case integer(Int64)
  /// `$5 hello`: binary-safe bytes.
  case bulkString([UInt8])
  /// `$-1` or `*-1`: no value (a missing key, a timed-out blocking pop).
  case null
  /// `*2 …`: an ordered list of replies, possibly nested.
  case array([RESPValue])

  /// The bytes of a bulk or simple string, nil for anything else.
  public var bytes: [UInt8]? {
    switch self {
    case .bulkString(let bytes): return bytes
    case .simpleString(let text): return Array(text.utf8)
    default: return nil
    }
  }

  /// A bulk or simple string decoded as UTF-8 (invalid bytes replaced), nil for anything else.
  public var string: String? {
    switch self {
    case .bulkString(let bytes): return String(decoding: bytes, as: UTF8.self)
    case .simpleString(let text): return text
    default: return nil
    }
  }

  /// An integer reply, or a bulk/simple string holding a decimal integer (as `GET` returns counters).
  public var integer: Int64? {
    switch self {
    case .integer(let value): return value
    case .bulkString, .simpleString: return string.flatMap { Int64($0) }
    default: return nil
    }
  }

  /// The elements of an array reply, nil for anything else.
  public var array: [RESPValue]? {
    if case .array(let values) = self { return values }
    return nil
  }

  /// True for `.null`.
  public var isNull: Bool {
    if case .null = self { return true }
    return false
  }

  /// The message of an error reply, nil for anything else.
  public var errorMessage: String? {
    if case .error(let message) = self { return message }
    return nil
  }
}
