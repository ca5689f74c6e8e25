import Clocks
import Glibc
import HTTP
import Sockets

/// A batched access log. Each entry is formatted on its loop's thread into that loop's buffer; the
/// buffer goes to `write` once per loop turn, as soon as it passes `flushBytes`, and when the loop
/// stops. A busy loop so writes many lines with one syscall, and a clean exit loses none.
public struct AccessLogWriter: Sendable {
  /// Appends one line for the entry, newline included.
  public var format: @Sendable (AccessLogEntry, inout [UInt8]) -> Void
  /// Takes a batch of whole lines.
  public var write: @Sendable ([UInt8]) -> Void
  /// A buffer this large is written at once, without waiting for the end of the loop turn.
  public var flushBytes: Int

  /// A writer from its parts; the default format is `AccessLogEntry.write(into:)`.
  public init(
    flushBytes: Int = 16 * 1024,
    format: @escaping @Sendable (AccessLogEntry, inout [UInt8]) -> Void = { $0.write(into: &$1) },
    write: @escaping @Sendable ([UInt8]) -> Void = AccessLogWriter.standardError
  ) {
    self.flushBytes = flushBytes
    self.format = format
    self.write = write
  }

  /// Writes a batch to standard error, finishing short writes; a batch that cannot be written is dropped.
  public static let standardError: @Sendable ([UInt8]) -> Void = { batch in
    var offset = 0
    while offset < batch.count {
      // Reads only the batch's own bytes, which live for the duration of the closure.
      let n = batch.withUnsafeBytes { raw -> Int? in
        guard let base = raw.baseAddress else { return nil }
        return try? Syscall.check("write") { Glibc.write(2, base + offset, raw.count - offset) }
      }
      guard let n, n > 0 else { return }
      offset += n
    }
  }
}

extension AccessLogEntry {
  /// Appends `id METHOD target status bytesB 1.234ms client` and a newline. Control bytes in the
  /// method or target become `?`, so a request cannot forge log lines.
  public func write(into buffer: inout [UInt8]) {
    buffer.append(contentsOf: requestID.utf8)
    buffer.append(0x20)
    Self.appendPrintable(method, to: &buffer)
    buffer.append(0x20)
    Self.appendPrintable(target, to: &buffer)
    buffer.append(0x20)
    Self.appendDecimal(status, to: &buffer)
    buffer.append(0x20)
    Self.appendDecimal(bytes, to: &buffer)
    buffer.append(UInt8(ascii: "B"))
    buffer.append(0x20)
    Self.appendMilliseconds(duration, to: &buffer)
    buffer.append(contentsOf: "ms ".utf8)
    Self.appendPrintable(client, to: &buffer)
    buffer.append(10)
  }

  static func appendPrintable(_ text: String, to buffer: inout [UInt8]) {
    // A target with no control byte (nearly all) is copied whole, not byte by byte.
    let copied = text.utf8.withContiguousStorageIfAvailable { bytes in
      guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return false }
      buffer.append(contentsOf: bytes)
      return true
    }
    if copied == true { return }
    for byte in text.utf8 { buffer.append(byte < 0x20 || byte == 0x7F ? UInt8(ascii: "?") : byte) }
  }

  static func appendDecimal(_ value: Int, to buffer: inout [UInt8]) {
    if value < 0 {
      buffer.append(UInt8(ascii: "-"))
      appendDecimal(value == .min ? .max : -value, to: &buffer)
      return
    }
    if value >= 10 { appendDecimal(value / 10, to: &buffer) }
    buffer.append(UInt8(ascii: "0") + UInt8(value % 10))
  }

  /// `duration` in milliseconds with three decimals ("1.234"), as both log formats write it.
  static func appendMilliseconds(_ duration: Duration, to buffer: inout [UInt8]) {
    let micros = duration.wholeMicroseconds
    appendDecimal(micros / 1000, to: &buffer)
    buffer.append(UInt8(ascii: "."))
    let fraction = micros % 1000
    buffer.append(UInt8(ascii: "0") + UInt8(fraction / 100))
    buffer.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
    buffer.append(UInt8(ascii: "0") + UInt8(fraction % 10))
  }
}
