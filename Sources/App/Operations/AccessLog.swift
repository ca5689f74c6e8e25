import Clocks
import GitHub
import Glibc
import HTTPServer

/// One line per request: id, method, target with its query string, status, body bytes, duration and
/// client, as text or as JSON lines (`--log-format`). The server formats the lines on its loop
/// threads and writes them in batches (`writer`). Secrets (the token, the OAuth client secret) are
/// never in a target we log, but any line that somehow holds one is redacted anyway; the sign-in
/// callback's query (GitHub's one-time `code` and the `state`) is never logged, in either format;
/// cookies and `Authorization` are never logged at all.
struct AccessLog: Sendable {
  /// Receives each line without its newline (tests); nil writes batches to standard error.
  let sink: (@Sendable (String) -> Void)?
  let redactors: [Redactor]
  let format: LogFormat
  /// The `instance` field of JSON lines.
  let instance: String
  /// Stamps JSON lines.
  let time: TimeSource

  init(
    sink: (@Sendable (String) -> Void)?, secrets: [String?], format: LogFormat = .text,
    instance: String = AccessLog.defaultInstance, time: TimeSource
  ) {
    self.sink = sink
    self.redactors = secrets.compactMap { $0 }.filter { !$0.isEmpty }.map { Redactor(secret: $0) }
    self.format = format
    self.instance = instance
    self.time = time
  }

  /// `hostname-pid`: tells instances on one host, and a restarted instance, apart.
  static var defaultInstance: String {
    var name = [CChar](repeating: 0, count: 256)
    let host =
      gethostname(&name, name.count - 1) == 0
      ? String(decoding: name.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
      : "host"
    return "\(host)-\(getpid())"
  }

  /// The server's batched writer: formats and redacts each entry, writes whole batches.
  var writer: AccessLogWriter {
    let redactors = self.redactors
    let sink = self.sink
    let json = format == .json
    let instance = self.instance
    let time = self.time
    // A test sink sees each line at once; standard error gets batches.
    return AccessLogWriter(
      flushBytes: sink == nil ? 16 * 1024 : 0,
      format: { entry, buffer in
        let start = buffer.count
        var entry = entry
        if let redacted = Self.withoutCallbackQuery(entry.target) { entry.target = redacted }
        if json {
          entry.writeJSON(instance: instance, time: time, into: &buffer)
        } else {
          entry.write(into: &buffer)
        }
        for redactor in redactors { redactor.redact(&buffer, from: start) }
      },
      write: { batch in
        guard let sink else { return AccessLogWriter.standardError(batch) }
        for line in batch.split(separator: 10) { sink(String(decoding: line, as: UTF8.self)) }
      })
  }

  /// The path whose query carries GitHub's one-time code and the sign-in state.
  static let callbackPath = "/login/callback"
  private static let callbackBytes = Array(callbackPath.utf8)

  /// `target` with its query replaced by `[redacted]` when its path holds the sign-in callback's
  /// (however it is spelt around it: `//login/callback`, an absolute URL, a trailing `/`); nil for
  /// any other target, which is logged as it came. It runs for every request line, so the usual
  /// target costs one `memchr` and a scan of its path's bytes: no allocation.
  static func withoutCallbackQuery(_ target: String) -> String? {
    var target = target
    let question = target.withUTF8 { bytes -> Int? in
      guard let base = bytes.baseAddress, !bytes.isEmpty,
        let mark = memchr(base, Int32(UInt8(ascii: "?")), bytes.count)
      else { return nil }
      let length = base.distance(to: mark.assumingMemoryBound(to: UInt8.self))
      return contains(UnsafeBufferPointer(rebasing: bytes[..<length]), callbackBytes) ? length : nil
    }
    guard let question else { return nil }
    return String(decoding: target.utf8.prefix(question), as: UTF8.self) + "?[redacted]"
  }

  /// Whether `needle` occurs in `haystack` (a naive scan: the needle is short and starts with `/`,
  /// which is rare enough in a path).
  private static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
    guard let first = needle.first, haystack.count >= needle.count else { return false }
    var index = 0
    while index <= haystack.count - needle.count {
      if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) {
        return true
      }
      index += 1
    }
    return false
  }

  /// A free-form event line (errors), redacted and made printable like the request lines, written at
  /// once; with the request's id when it belongs to one.
  func event(_ text: String, requestID: String? = nil, level: String = "error") {
    var line: [UInt8] = []
    if format == .json {
      AccessLogEntry.writeJSONEvent(
        level: level, requestID: requestID, message: text, instance: instance, time: time, into: &line)
    } else {
      if let requestID { line.append(contentsOf: (requestID + " ").utf8) }
      for byte in text.utf8 { line.append(byte < 0x20 || byte == 0x7F ? UInt8(ascii: "?") : byte) }
      line.append(10)
    }
    for redactor in redactors { redactor.redact(&line, from: 0) }
    writer.write(line)
  }
}
