// The Redis target's incremental reply parser, driven the way a connection drives it (internal,
// hence the testable import).
@testable import Redis

/// Small limits, so short inputs reach every limit check.
let smallLimits = RESPParserLimits(
  maxLineLength: 24, maxBulkLength: 16, maxArrayLength: 5, maxDepth: 4, maxReplyElements: 12,
  maxReplyBytes: 96)
/// The client's defaults.
let defaultLimits = RESPParserLimits()

/// What a connection would see, in order: replies, then the error or the count of bytes left over.
struct Outcome: Equatable {
  var values: [RESPValue] = []
  var error: RESPProtocolError?
  var midReply = false
}

/// Appends each chunk and takes every reply it completes, as a connection does.
func drive(_ chunks: [ArraySlice<UInt8>], limits: RESPParserLimits) -> Outcome {
  var parser = RESPParser(limits: limits)
  var outcome = Outcome()
  for chunk in chunks {
    parser.append(contentsOf: chunk)
    do {
      while let value = try parser.next() {
        check(value, limits: limits, depth: 0)
        outcome.values.append(value)
      }
    } catch {
      outcome.error = error
      // A failed parser stays failed.
      do {
        _ = try parser.next()
        expect(false, "parser recovered after \(error)")
      } catch let again {
        expect(again == error, "a different error the second time: \(again) after \(error)")
      }
      return outcome
    }
  }
  outcome.midReply = parser.isMidReply
  expect(
    parser.bufferedByteCount <= limits.maxBulkLength + limits.maxLineLength + 4, "buffer over the limits")
  return outcome
}

/// Every reply stays inside the limits.
func check(_ value: RESPValue, limits: RESPParserLimits, depth: Int) {
  switch value {
  case .simpleString(let text), .error(let text):
    expect(text.utf8.count <= 3 * limits.maxLineLength, "line over limit")
    expect(!text.utf8.contains(13) && !text.utf8.contains(10), "CR or LF inside a line")
  case .bulkString(let bytes):
    expect(bytes.count <= limits.maxBulkLength, "bulk over limit")
  case .array(let items):
    expect(depth < limits.maxDepth, "nesting over limit")
    expect(!items.isEmpty && items.count <= limits.maxArrayLength || items.isEmpty, "array over limit")
    for item in items { check(item, limits: limits, depth: depth + 1) }
  case .integer, .null:
    break
  }
}

/// RESP2 bytes for a reply, to check that what was parsed parses back to itself.
func encode(_ value: RESPValue, into out: inout [UInt8]) {
  switch value {
  case .simpleString(let text):
    out += Array("+\(text)\r\n".utf8)
  case .error(let text):
    out += Array("-\(text)\r\n".utf8)
  case .integer(let number):
    out += Array(":\(number)\r\n".utf8)
  case .bulkString(let bytes):
    out += Array("$\(bytes.count)\r\n".utf8) + bytes + [13, 10]
  case .null:
    out += Array("$-1\r\n".utf8)
  case .array(let items):
    out += Array("*\(items.count)\r\n".utf8)
    for item in items { encode(item, into: &out) }
  }
}

/// libFuzzer entry: the bytes are parsed in one feed, in two feeds split at an input-derived point, and
/// byte by byte, with small and default limits; all must agree, and the replies re-encode to themselves.
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data, size > 0 else { return 0 }
  // libFuzzer guarantees `size` readable bytes at `data` for the duration of this call.
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  for limits in [smallLimits, defaultLimits] {
    let whole = outcomeAgreeingAcrossFeeds(bytes, trickleLimit: 1024) { drive($0, limits: limits) }
    var again: [UInt8] = []
    for value in whole.values { encode(value, into: &again) }
    let reparsed = drive([again[...]], limits: defaultLimits)
    expect(reparsed.error == nil && reparsed.values == whole.values, "replies do not re-encode to themselves")
  }
  return 0
}
