/// Bytes from the server that are not valid RESP2, or that break one of the parser's limits.
/// After one of these the connection's byte stream cannot be trusted and must be closed.
public enum RESPProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The first byte of a reply is not one of `+ - : $ *`.
  case unknownType(UInt8)
  /// A header or simple line did not end in CRLF within the line limit.
  case lineTooLong(limit: Int)
  /// A line contains a bare CR or LF, or a bulk string's payload is not followed by CRLF.
  case badFraming
  /// An integer or a length is not a decimal number that fits in 64 bits.
  case badNumber
  /// A length below -1.
  case negativeLength
  /// A bulk string longer than the limit.
  case bulkTooLong(length: Int64, limit: Int)
  /// An array longer than the limit.
  case arrayTooLong(count: Int64, limit: Int)
  /// Arrays nested deeper than the limit.
  case tooDeep(limit: Int)
  /// One reply holds more elements, or more payload bytes, than the limits allow.
  case replyTooLarge
  /// A reply arrived while no command was waiting for one.
  case unsolicitedReply

  /// A short explanation for logs.
  public var description: String {
    switch self {
    case .unknownType(let byte): return "unknown reply type byte \(byte)"
    case .lineTooLong(let limit): return "reply line longer than \(limit) bytes"
    case .badFraming: return "reply framing is not CRLF"
    case .badNumber: return "reply number is not a 64-bit decimal"
    case .negativeLength: return "reply length below -1"
    case .bulkTooLong(let length, let limit): return "bulk string of \(length) bytes over the \(limit) limit"
    case .arrayTooLong(let count, let limit): return "array of \(count) elements over the \(limit) limit"
    case .tooDeep(let limit): return "arrays nested deeper than \(limit)"
    case .replyTooLarge: return "reply over the element or byte limit"
    case .unsolicitedReply: return "a reply arrived with no command waiting"
    }
  }
}
