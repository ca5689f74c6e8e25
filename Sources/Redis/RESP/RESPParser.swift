/// An incremental RESP2 reply parser: bytes in, whole replies out, in order. It does no I/O.
///
/// Feed it whatever arrived with `append`, then call `next()` until it returns nil (more bytes needed).
/// Work is resumable: a partly received line is not rescanned, a bulk payload is waited for without
/// rescanning, and partly received arrays are kept on a stack, so feeding a reply byte by byte costs
/// the same as feeding it at once. After a `RESPProtocolError` the parser stays failed.
public struct RESPParser: Sendable {
  private struct Frame: Sendable {
    var expected: Int
    var items: [RESPValue]
  }

  private enum Step {
    case incomplete
    case opened
    case value(RESPValue)
  }

  private static let types: [UInt8] = Array("+-:$*".utf8)

  /// The limits this parser enforces.
  public let limits: RESPParserLimits
  private var buffer: [UInt8] = []
  /// Index of the first byte not yet consumed.
  private var start = 0
  /// Where the search for the current line's CR resumes.
  private var scanFrom = 0
  /// The length of a bulk payload whose header has been consumed.
  private var awaitingBulk: Int?
  private var stack: [Frame] = []
  private var replyElements = 0
  private var replyBytes = 0
  private var failure: RESPProtocolError?

  /// A parser with `limits`.
  public init(limits: RESPParserLimits = RESPParserLimits()) {
    self.limits = limits
  }

  /// Bytes received but not yet returned as part of a complete reply's final token.
  public var bufferedByteCount: Int { buffer.count - start }

  /// True while part of a reply has been consumed or buffered.
  public var isMidReply: Bool { !stack.isEmpty || awaitingBulk != nil || start < buffer.count }

  /// Adds received bytes.
  public mutating func append(_ bytes: UnsafeRawBufferPointer) {
    buffer.append(contentsOf: bytes)
  }

  /// Adds received bytes.
  public mutating func append(contentsOf bytes: some Sequence<UInt8>) {
    buffer.append(contentsOf: bytes)
  }

  /// The next complete reply, or nil when more bytes are needed.
  public mutating func next() throws(RESPProtocolError) -> RESPValue? {
    if let failure { throw failure }
    do {
      while true {
        switch try step() {
        case .incomplete:
          compact()
          return nil
        case .opened:
          continue
        case .value(var value):
          while let last = stack.indices.last {
            stack[last].items.append(value)
            if stack[last].items.count < stack[last].expected { break }
            value = .array(stack.removeLast().items)
          }
          if stack.isEmpty {
            replyElements = 0
            replyBytes = 0
            compact()
            return value
          }
        }
      }
    } catch {
      failure = error
      throw error
    }
  }

  /// Consumes one token: a line, or a bulk header with its payload.
  private mutating func step() throws(RESPProtocolError) -> Step {
    if let length = awaitingBulk {
      guard buffer.count - start >= length + 2 else { return .incomplete }
      guard buffer[start + length] == 13, buffer[start + length + 1] == 10 else { throw .badFraming }
      let payload = Array(buffer[start..<(start + length)])
      start += length + 2
      scanFrom = start
      awaitingBulk = nil
      return .value(.bulkString(payload))
    }
    guard start < buffer.count else { return .incomplete }
    let type = buffer[start]
    // An unknown type is refused before its line ends, so junk is not buffered up to the line limit.
    guard Self.types.contains(type) else { throw .unknownType(type) }
    guard let end = try lineEnd() else { return .incomplete }
    let contentStart = start + 1
    try count(bytes: end - start, elements: 1)
    defer {
      start = end + 2
      scanFrom = start
    }
    switch type {
    case UInt8(ascii: "+"):
      return .value(.simpleString(String(decoding: buffer[contentStart..<end], as: UTF8.self)))
    case UInt8(ascii: "-"):
      return .value(.error(String(decoding: buffer[contentStart..<end], as: UTF8.self)))
    case UInt8(ascii: ":"):
      return .value(.integer(try number(contentStart, end)))
    case UInt8(ascii: "$"):
      let length = try number(contentStart, end)
      if length == -1 { return .value(.null) }
      if length < -1 { throw .negativeLength }
      if length > Int64(limits.maxBulkLength) {
        throw .bulkTooLong(length: length, limit: limits.maxBulkLength)
      }
      try count(bytes: Int(length), elements: 0)
      awaitingBulk = Int(length)
      return .opened
    case UInt8(ascii: "*"):
      let length = try number(contentStart, end)
      if length == -1 { return .value(.null) }
      if length < -1 { throw .negativeLength }
      // An empty array is a level of nesting too, even though it never opens a frame.
      if stack.count >= limits.maxDepth { throw .tooDeep(limit: limits.maxDepth) }
      if length == 0 { return .value(.array([])) }
      if length > Int64(limits.maxArrayLength) {
        throw .arrayTooLong(count: length, limit: limits.maxArrayLength)
      }
      // The announced count is untrusted: reserve little, grow as elements really arrive.
      var items: [RESPValue] = []
      items.reserveCapacity(min(Int(length), 16))
      stack.append(Frame(expected: Int(length), items: items))
      return .opened
    default:
      throw .unknownType(type)
    }
  }

  /// The index of the CR ending the line at `start`, nil if it has not fully arrived.
  private mutating func lineEnd() throws(RESPProtocolError) -> Int? {
    let limitEnd = min(buffer.count, start + 1 + limits.maxLineLength + 1)
    var index = max(scanFrom, start + 1)
    while index < limitEnd {
      let byte = buffer[index]
      if byte == 10 { throw .badFraming }
      if byte == 13 {
        guard index + 1 < buffer.count else {
          scanFrom = index
          return nil
        }
        guard buffer[index + 1] == 10 else { throw .badFraming }
        return index
      }
      index += 1
    }
    if buffer.count - start > limits.maxLineLength + 1 { throw .lineTooLong(limit: limits.maxLineLength) }
    scanFrom = index
    return nil
  }

  /// A signed decimal that fits in 64 bits.
  private func number(_ from: Int, _ to: Int) throws(RESPProtocolError) -> Int64 {
    var index = from
    var negative = false
    if index < to && buffer[index] == UInt8(ascii: "-") {
      negative = true
      index += 1
    }
    guard index < to, to - index <= 19 else { throw .badNumber }
    var value: Int64 = 0
    while index < to {
      let digit = buffer[index] &- UInt8(ascii: "0")
      guard digit < 10 else { throw .badNumber }
      let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = shifted.addingReportingOverflow(Int64(digit))
      guard !overflow1, !overflow2 else { throw .badNumber }
      value = sum
      index += 1
    }
    return negative ? -value : value
  }

  /// Charges one token to the current reply's element and byte budgets.
  private mutating func count(bytes: Int, elements: Int) throws(RESPProtocolError) {
    replyElements += elements
    replyBytes += bytes
    if replyElements > limits.maxReplyElements || replyBytes > limits.maxReplyBytes { throw .replyTooLarge }
  }

  /// Drops consumed bytes so the buffer holds at most one unfinished token.
  private mutating func compact() {
    if start == buffer.count {
      // A buffer grown for a large value is released rather than kept for the life of the connection.
      if buffer.capacity > 1 << 20 { buffer = [] } else { buffer.removeAll(keepingCapacity: true) }
      scanFrom -= start
      start = 0
    } else if start >= 4096 && start * 2 >= buffer.count {
      buffer.removeSubrange(0..<start)
      scanFrom -= start
      start = 0
    }
  }
}
