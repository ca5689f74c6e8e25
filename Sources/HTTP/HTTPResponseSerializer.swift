/// Writes response heads (and chunk frames) as bytes, adding the framing headers the server owns.
public enum HTTPResponseSerializer {
  /// How the body is delimited on the wire.
  public enum Framing: Sendable, Equatable {
    /// `Content-Length: n`.
    case length(Int)
    /// `Transfer-Encoding: chunked`.
    case chunked
    /// No length: the body ends when the connection closes (streams to HTTP/1.0 clients).
    case untilClose
  }

  /// Appends the status line and headers. Handler headers that the server owns (framing, `Connection`,
  /// `Date`, `Server`) are replaced, and fields containing CR or LF are dropped (no response splitting).
  /// - Parameters:
  ///   - date: a preformatted `Date` value (cached per second by the caller).
  ///   - keepAlive: nil writes no `Connection` field (HTTP/1.1 default), true writes `keep-alive`, false `close`.
  ///   - serializedHeaders: `headers` as `serialize(_:)` wrote them, copied instead when given.
  ///   - requestID: written as `X-Request-Id` when given; the caller guarantees it is a safe token.
  public static func writeHead(
    status: HTTPStatus, headers: HTTPHeaders, serializedHeaders: [UInt8]? = nil, framing: Framing,
    keepAlive: Bool?, date: [UInt8], server: [UInt8], requestID: String? = nil, into out: inout [UInt8]
  ) {
    out.append(contentsOf: "HTTP/1.1 ".utf8)
    appendDecimal(status.code, to: &out)
    out.append(32)
    out.append(contentsOf: status.reasonPhrase.utf8)
    out.append(13)
    out.append(10)
    if let serializedHeaders {
      out.append(contentsOf: serializedHeaders)
    } else {
      writeFields(headers, into: &out)
    }
    out.append(contentsOf: "Date: ".utf8)
    out.append(contentsOf: date)
    out.append(contentsOf: "\r\nServer: ".utf8)
    out.append(contentsOf: server)
    if let requestID {
      // Ids are server-made or passed `RequestID.isValid`: no byte here can break the head.
      out.append(contentsOf: "\r\nX-Request-Id: ".utf8)
      out.append(contentsOf: requestID.utf8)
    }
    switch framing {
    case .length(let n):
      if !status.forbidsBody || status.code == 304 && n > 0 {
        out.append(contentsOf: "\r\nContent-Length: ".utf8)
        appendDecimal(n, to: &out)
      }
    case .chunked: out.append(contentsOf: "\r\nTransfer-Encoding: chunked".utf8)
    case .untilClose: break
    }
    switch keepAlive {
    case .some(true): out.append(contentsOf: "\r\nConnection: keep-alive".utf8)
    case .some(false): out.append(contentsOf: "\r\nConnection: close".utf8)
    case .none: break
    }
    out.append(contentsOf: "\r\n\r\n".utf8)
  }

  /// The header lines `writeHead` would write for `headers` (server-owned and unsafe fields left out).
  public static func serialize(_ headers: HTTPHeaders) -> [UInt8] {
    var out: [UInt8] = []
    writeFields(headers, into: &out)
    return out
  }

  private static func writeFields(_ headers: HTTPHeaders, into out: inout [UInt8]) {
    for field in headers.fields { writeField(name: field.name, value: field.value, into: &out) }
  }

  /// One header line as `writeHead` writes it: nothing for a server-owned or unsafe field.
  static func writeField(name: String, value: String, into out: inout [UInt8]) {
    guard !isServerOwned(name) && isSafe(name) && isSafe(value) else { return }
    out.append(contentsOf: name.utf8)
    out.append(58)
    out.append(32)
    out.append(contentsOf: value.utf8)
    out.append(13)
    out.append(10)
  }

  /// Appends one chunk frame (`size CRLF data CRLF`); empty data is skipped (it would end the body).
  public static func writeChunk(_ data: [UInt8], into out: inout [UInt8]) {
    guard !data.isEmpty else { return }
    appendHex(data.count, to: &out)
    out.append(13)
    out.append(10)
    out.append(contentsOf: data)
    out.append(13)
    out.append(10)
  }

  /// The last-chunk marker that ends a chunked body.
  public static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)

  /// Appends `n` in decimal.
  public static func appendDecimal(_ n: Int, to out: inout [UInt8]) {
    if n < 10 {
      out.append(UInt8(48 + max(n, 0)))
      return
    }
    var digits:
      (
        UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
        UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
      ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var v = n
    var count = 0
    withUnsafeMutableBytes(of: &digits) { buf in
      // A fixed 20-byte scratch area holds every digit of a 64-bit integer.
      while v > 0 && count < 20 {
        buf[19 - count] = UInt8(48 + v % 10)
        v /= 10
        count += 1
      }
      out.append(contentsOf: buf[(20 - count)...])
    }
  }

  private static func appendHex(_ n: Int, to out: inout [UInt8]) {
    let hex: StaticString = "0123456789abcdef"
    var shift = (Int.bitWidth - n.leadingZeroBitCount + 3) / 4 * 4 - 4
    if shift < 0 { shift = 0 }
    while shift >= 0 {
      out.append(hex.utf8Start[(n >> shift) & 0xF])
      shift -= 4
    }
  }

  private static func isServerOwned(_ name: String) -> Bool {
    switch name.utf8.count {
    case 4: return HTTPHeaders.equalsIgnoringCase(name, "Date")
    case 6: return HTTPHeaders.equalsIgnoringCase(name, "Server")
    case 10: return HTTPHeaders.equalsIgnoringCase(name, "Connection")
    case 14: return HTTPHeaders.equalsIgnoringCase(name, "Content-Length")
    case 17: return HTTPHeaders.equalsIgnoringCase(name, "Transfer-Encoding")
    default: return false
    }
  }

  private static func isSafe(_ s: String) -> Bool { !s.utf8.contains { $0 == 13 || $0 == 10 || $0 == 0 } }
}
