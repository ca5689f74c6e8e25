import Glibc
import HTTP

/// A parsed response as read off the wire by `RawSocketClient`.
public struct RawResponse: Sendable {
  /// The status code.
  public var status: Int
  /// The header fields in order.
  public var headers: HTTPHeaders
  /// The body, de-chunked if it was chunked.
  public var body: [UInt8]
  /// The body as UTF-8 text.
  public var text: String { String(decoding: body, as: UTF8.self) }

  /// A response from its parts.
  public init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
    self.status = status
    self.headers = headers
    self.body = body
  }
}

/// What went wrong in a `RawSocketClient` call.
public struct RawClientError: Error, CustomStringConvertible {
  /// A short explanation.
  public var description: String
  /// An error with a message.
  public init(_ description: String) { self.description = description }
}

/// A blocking TCP client for tests (call it inside `onThread`): it sends arbitrary (also malformed) bytes, can trickle them, and
/// reads responses or everything until the server closes, each with a receive timeout.
public final class RawSocketClient: @unchecked Sendable {
  // @unchecked Sendable: a test uses each client from one thread at a time (it may hand it to another
  // thread between calls, as `onThread` does), so the buffer is never accessed concurrently.
  private let fd: Int32
  private var buffer: [UInt8] = []
  private var isOpen = true

  /// Connects to `host:port` (IPv4); reads fail after `timeout` without data.
  public init(host: String = "127.0.0.1", port: Int, timeout: Duration = .seconds(5)) throws {
    fd = try Self.connect(host: host, port: port)
    setTimeout(timeout)
  }

  deinit { if isOpen { Glibc.close(fd) } }

  /// A blocking IPv4 TCP socket connected to `host:port`; the caller owns (and closes) it.
  public static func connect(host: String = "127.0.0.1", port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw RawClientError("socket failed") }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
    inet_pton(AF_INET, host, &addr.sin_addr)
    let rc = withUnsafePointer(to: &addr) { p in
      // sockaddr_in is passed as sockaddr, as the sockets API expects.
      p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard rc == 0 else {
      let code = errno
      Glibc.close(fd)
      throw RawClientError("connect failed: errno \(code)")
    }
    return fd
  }

  /// Changes the receive timeout.
  public func setTimeout(_ timeout: Duration) {
    let (s, atto) = timeout.components
    var tv = timeval(tv_sec: Int(s), tv_usec: Int(atto / 1_000_000_000_000))
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
  }

  /// Sends text as UTF-8.
  public func send(_ text: String) throws { try send(Array(text.utf8)) }

  /// Sends all bytes.
  public func send(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let n = bytes[offset...].withUnsafeBytes {
        Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if n < 0 {
        if errno == EINTR { continue }
        throw RawClientError("send failed: errno \(errno)")
      }
      offset += n
    }
  }

  /// Sends `bytes` a few at a time with a pause between pieces.
  public func trickle(_ text: String, pieceSize: Int = 1, pause: Duration) throws {
    let bytes = Array(text.utf8)
    var i = 0
    while i < bytes.count {
      try send(Array(bytes[i..<min(i + pieceSize, bytes.count)]))
      i += pieceSize
      sleepFor(pause)  // Real time: the trickle's pace is the point.
    }
  }

  /// Half-closes the sending side.
  public func shutdownWrite() { Glibc.shutdown(fd, Int32(SHUT_WR)) }

  /// Closes the socket.
  public func close() {
    if isOpen {
      isOpen = false
      Glibc.close(fd)
    }
  }

  /// Reads more bytes into the buffer; false on end of stream.
  private func fill() throws -> Bool {
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n > 0 {
        buffer.append(contentsOf: chunk[0..<n])
        return true
      }
      if n == 0 { return false }
      if errno == EINTR { continue }
      if errno == EAGAIN || errno == EWOULDBLOCK { throw RawClientError("timed out waiting for data") }
      if errno == ECONNRESET { return false }
      throw RawClientError("recv failed: errno \(errno)")
    }
  }

  /// The bytes already buffered, or else the next bytes that arrive (at least one), to see what a
  /// streamed response flushed before the rest. Throws at the end of the stream or on the timeout.
  public func readSome() throws -> [UInt8] {
    if buffer.isEmpty, !(try fill()) { throw RawClientError("connection ended") }
    defer { buffer.removeAll() }
    return buffer
  }

  /// Reads everything until the server closes (or the timeout hits, which throws).
  public func readUntilClose() throws -> [UInt8] {
    while try fill() {}
    defer { buffer.removeAll() }
    return buffer
  }

  /// True if the server closes the connection (after any pending bytes) before the timeout.
  public func closesConnection() -> Bool {
    (try? readUntilClose()) != nil
  }

  func readHeadLine() throws -> String { try readLine() }

  private func readLine() throws -> String {
    while true {
      if let i = buffer.firstIndex(of: 10) {
        let end = i > 0 && buffer[i - 1] == 13 ? i - 1 : i
        let line = String(decoding: buffer[0..<end], as: UTF8.self)
        buffer.removeFirst(i + 1)
        return line
      }
      guard try fill() else { throw RawClientError("connection closed mid-line") }
    }
  }

  private func readExactly(_ n: Int) throws -> [UInt8] {
    while buffer.count < n {
      guard try fill() else { throw RawClientError("connection closed mid-body") }
    }
    let out = Array(buffer[0..<n])
    buffer.removeFirst(n)
    return out
  }

  /// Reads one response. `bodyExpected: false` for HEAD (the head alone is read).
  public func readResponse(bodyExpected: Bool = true) throws -> RawResponse {
    let statusLine = try readLine()
    let parts = statusLine.split(separator: " ", maxSplits: 2)
    guard parts.count >= 2, let status = Int(parts[1]) else {
      throw RawClientError("bad status line \(statusLine)")
    }
    var headers = HTTPHeaders()
    while true {
      let line = try readLine()
      if line.isEmpty { break }
      guard let colon = line.firstIndex(of: ":") else { throw RawClientError("bad header \(line)") }
      headers.add(
        name: String(line[..<colon]), value: String(line[line.index(after: colon)...].drop { $0 == " " }))
    }
    if status == 100 {
      return try readResponse(bodyExpected: bodyExpected)
    }
    var body: [UInt8] = []
    if bodyExpected && status != 204 && status != 304 {
      if let length = headers["Content-Length"].flatMap({ Int($0) }) {
        body = try readExactly(length)
      } else if headers.containsToken("chunked", in: "Transfer-Encoding") {
        while true {
          let sizeLine = try readLine()
          guard let size = Int(sizeLine, radix: 16) else {
            throw RawClientError("bad chunk size \(sizeLine)")
          }
          if size == 0 {
            _ = try readLine()
            break
          }
          body += try readExactly(size)
          _ = try readLine()
        }
      } else {
        body = try readUntilClose()
      }
    }
    return RawResponse(status: status, headers: headers, body: body)
  }

  /// Sends a simple request and reads its response.
  public func request(
    _ method: String = "GET", _ target: String, headers: [(String, String)] = [], body: String = ""
  ) throws -> RawResponse {
    var text = "\(method) \(target) HTTP/1.1\r\nHost: test\r\n"
    for (name, value) in headers { text += "\(name): \(value)\r\n" }
    if !body.isEmpty { text += "Content-Length: \(body.utf8.count)\r\n" }
    try send(text + "\r\n" + body)
    return try readResponse(bodyExpected: method != "HEAD")
  }
}

/// Blocks the calling thread for `duration` (test helper for trickling).
public func sleepFor(_ duration: Duration) {
  let (s, atto) = duration.components
  var ts = timespec(tv_sec: Int(s), tv_nsec: Int(atto / 1_000_000_000))
  var rest = timespec()
  // Real time by design: trickling bytes to a real server socket.
  while nanosleep(&ts, &rest) != 0 && errno == EINTR { ts = rest }
}

extension RawSocketClient {
  /// Reads one head (up to the blank line) as text, without interpreting it.
  public func readRawHead() throws -> String {
    var lines: [String] = []
    while true {
      let line = try readHeadLine()
      if line.isEmpty { return lines.joined(separator: "\r\n") }
      lines.append(line)
    }
  }
}
