import GitHub
import Glibc
import HTTPServer

/// One line per request: id, method, target with its query string, status, body bytes, duration.
/// The server formats the lines on its loop threads and writes them in batches (`writer`). The token
/// is never in a target we log, but any line that somehow holds it is redacted anyway.
struct AccessLog: Sendable {
  /// Receives each line without its newline (tests); nil writes batches to standard error.
  let sink: (@Sendable (String) -> Void)?
  let redactor: Redactor

  init(sink: (@Sendable (String) -> Void)?, secret: String?) {
    self.sink = sink
    self.redactor = Redactor(secret: secret)
  }

  /// The server's batched writer: formats and redacts each entry, writes whole batches.
  var writer: AccessLogWriter {
    let redactor = self.redactor
    let sink = self.sink
    // A test sink sees each line at once; standard error gets batches.
    return AccessLogWriter(
      flushBytes: sink == nil ? 16 * 1024 : 0,
      format: { entry, buffer in
        let start = buffer.count
        entry.write(into: &buffer)
        redactor.redact(&buffer, from: start)
      },
      write: { batch in
        guard let sink else { return AccessLogWriter.standardError(batch) }
        for line in batch.split(separator: 10) { sink(String(decoding: line, as: UTF8.self)) }
      })
  }

  /// A free-form line (errors), redacted and made printable like the request lines, written at once.
  func note(_ text: String) {
    var line: [UInt8] = []
    for byte in text.utf8 { line.append(byte < 0x20 || byte == 0x7F ? UInt8(ascii: "?") : byte) }
    line.append(10)
    redactor.redact(&line, from: 0)
    writer.write(line)
  }
}
