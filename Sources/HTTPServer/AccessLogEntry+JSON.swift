import Clocks
import HTTP

extension AccessLogEntry {
  /// Appends one JSON object and a newline: `time` (UTC, milliseconds), `level` (`error` for 5xx,
  /// else `info`), `request_id`, `method`, `path` (the target, query included), `status`, `bytes`,
  /// `duration_ms`, `client` and `instance`. Every line parses whatever the request held: quotes,
  /// backslashes, control bytes and non-ASCII bytes are escaped. `time` stamps the line.
  public func writeJSON(instance: String, time: TimeSource, into buffer: inout [UInt8]) {
    buffer.append(contentsOf: #"{"time":""#.utf8)
    Self.appendTimestamp(epochMilliseconds: time.epochMilliseconds(), to: &buffer)
    buffer.append(
      contentsOf: status >= 500
        ? #"","level":"error","request_id":""#.utf8 : #"","level":"info","request_id":""#.utf8)
    Self.appendJSONEscaped(requestID, to: &buffer)
    buffer.append(contentsOf: #"","method":""#.utf8)
    Self.appendJSONEscaped(method, to: &buffer)
    buffer.append(contentsOf: #"","path":""#.utf8)
    Self.appendJSONEscaped(target, to: &buffer)
    buffer.append(contentsOf: #"","status":"#.utf8)
    Self.appendDecimal(status, to: &buffer)
    buffer.append(contentsOf: #","bytes":"#.utf8)
    Self.appendDecimal(bytes, to: &buffer)
    buffer.append(contentsOf: #","duration_ms":"#.utf8)
    Self.appendMilliseconds(duration, to: &buffer)
    buffer.append(contentsOf: #","client":""#.utf8)
    Self.appendJSONEscaped(client, to: &buffer)
    buffer.append(contentsOf: #"","instance":""#.utf8)
    Self.appendJSONEscaped(instance, to: &buffer)
    buffer.append(contentsOf: "\"}\n".utf8)
  }

  /// A JSON event line (`time`, `level`, `request_id` when known, `message`, `instance`) for what is
  /// not a request: upstream failures, handler errors.
  public static func writeJSONEvent(
    level: String, requestID: String?, message: String, instance: String, time: TimeSource,
    into buffer: inout [UInt8]
  ) {
    buffer.append(contentsOf: #"{"time":""#.utf8)
    appendTimestamp(epochMilliseconds: time.epochMilliseconds(), to: &buffer)
    buffer.append(contentsOf: #"","level":""#.utf8)
    appendJSONEscaped(level, to: &buffer)
    if let requestID {
      buffer.append(contentsOf: #"","request_id":""#.utf8)
      appendJSONEscaped(requestID, to: &buffer)
    }
    buffer.append(contentsOf: #"","message":""#.utf8)
    appendJSONEscaped(message, to: &buffer)
    buffer.append(contentsOf: #"","instance":""#.utf8)
    appendJSONEscaped(instance, to: &buffer)
    buffer.append(contentsOf: "\"}\n".utf8)
  }

  /// `2026-11-25T12:36:09.123Z` for `epochMilliseconds` (Unix time, non-negative).
  static func appendTimestamp(epochMilliseconds: Int, to buffer: inout [UInt8]) {
    let seconds = max(0, epochMilliseconds) / 1000
    let (year, month, day) = CivilDate.civil(fromDays: CivilDate.days(fromUnix: seconds))
    let secondOfDay = seconds - CivilDate.days(fromUnix: seconds) * 86400
    func two(_ n: Int) {
      buffer.append(UInt8(ascii: "0") + UInt8(n / 10 % 10))
      buffer.append(UInt8(ascii: "0") + UInt8(n % 10))
    }
    appendDecimal(year, to: &buffer)
    buffer.append(UInt8(ascii: "-"))
    two(month)
    buffer.append(UInt8(ascii: "-"))
    two(day)
    buffer.append(UInt8(ascii: "T"))
    two(secondOfDay / 3600)
    buffer.append(UInt8(ascii: ":"))
    two(secondOfDay / 60 % 60)
    buffer.append(UInt8(ascii: ":"))
    two(secondOfDay % 60)
    buffer.append(UInt8(ascii: "."))
    let millis = max(0, epochMilliseconds) % 1000
    buffer.append(UInt8(ascii: "0") + UInt8(millis / 100 % 10))
    two(millis % 100)
    buffer.append(UInt8(ascii: "Z"))
  }

  private static let hexDigits = Array("0123456789abcdef".utf8)

  /// The text as the inside of a JSON string. Bytes that need no escape (nearly every target) are
  /// copied whole; the rest, non-ASCII included, become escapes, so the line is valid JSON and ASCII
  /// whatever the request's bytes were.
  static func appendJSONEscaped(_ text: String, to buffer: inout [UInt8]) {
    func plain(_ byte: UInt8) -> Bool { byte >= 0x20 && byte < 0x7F && byte != 0x22 && byte != 0x5C }
    let copied = text.utf8.withContiguousStorageIfAvailable { bytes in
      guard bytes.allSatisfy(plain) else { return false }
      buffer.append(contentsOf: bytes)
      return true
    }
    if copied == true { return }
    for byte in text.utf8 {
      if plain(byte) {
        buffer.append(byte)
      } else if byte == 0x22 || byte == 0x5C {
        buffer.append(0x5C)
        buffer.append(byte)
      } else {
        buffer.append(contentsOf: #"\u00"#.utf8)
        buffer.append(hexDigits[Int(byte >> 4)])
        buffer.append(hexDigits[Int(byte & 0xF)])
      }
    }
  }
}
