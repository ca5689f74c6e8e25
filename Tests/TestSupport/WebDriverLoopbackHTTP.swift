import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A minimal HTTP/1.1 client for servers on 127.0.0.1 (chromedriver, test control endpoints): one
/// request per connection, blocking socket calls on a fresh thread so the cooperative pool is never
/// blocked while Chromium loads a page.
public enum WebDriverLoopbackHTTP {
  /// A status code and a (de-chunked) body.
  public struct Reply: Sendable {
    /// The status code.
    public let status: Int
    /// The body bytes.
    public let body: [UInt8]
    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }
  }

  /// What went wrong below HTTP (connect, send, receive, framing, timeout).
  public struct Failure: Error, CustomStringConvertible {
    /// What failed and why.
    public let description: String
  }

  /// Sends `method path` with an optional body to 127.0.0.1:`port` and reads the whole reply.
  public static func exchange(
    port: Int, method: String, path: String, body: [UInt8]?, timeout: Duration
  ) async throws -> Reply {
    try await withCheckedThrowingContinuation { continuation in
      let thread = Thread {
        continuation.resume(
          with: Result {
            try blockingExchange(port: port, method: method, path: path, body: body, timeout: timeout)
          })
      }
      thread.start()
    }
  }

  private static func failure(_ what: String) -> Failure {
    Failure(description: "\(what): \(String(cString: strerror(errno)))")
  }

  private static func blockingExchange(
    port: Int, method: String, path: String, body: [UInt8]?, timeout: Duration
  ) throws -> Reply {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw failure("socket") }
    defer { close(descriptor) }
    let parts = timeout.components
    var limit = timeval(tv_sec: Int(parts.seconds), tv_usec: Int(parts.attoseconds / 1_000_000_000_000))
    if limit.tv_sec == 0 && limit.tv_usec < 1000 { limit.tv_usec = 1000 }
    // setsockopt only reads the local timeval during the call.
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    // The sockaddr_in is a local value viewed as sockaddr only for the duration of the call.
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
    guard connected else { throw failure("connect 127.0.0.1:\(port)") }

    var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    head += "Accept: application/json\r\n"
    if let body {
      head += "Content-Type: application/json; charset=utf-8\r\nContent-Length: \(body.count)\r\n"
    }
    head += "\r\n"
    try writeAll(descriptor, Array(head.utf8) + (body ?? []))
    return try readReply(descriptor)
  }

  private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      // The buffer pointer is only used during this send call.
      let written = bytes.withUnsafeBytes { buffer in
        send(descriptor, buffer.baseAddress?.advanced(by: offset), bytes.count - offset, Int32(MSG_NOSIGNAL))
      }
      if written < 0 {
        if errno == EINTR { continue }
        throw failure("send")
      }
      offset += written
    }
  }

  /// Reads until the head is complete and then exactly the body its framing announces.
  private static func readReply(_ descriptor: Int32) throws -> Reply {
    var data: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    var headEnd: Int?
    var framing: Framing = .untilClose
    var status = 0
    while true {
      if let headEnd, framing.isComplete(data, bodyStart: headEnd) { break }
      // The chunk buffer is only written during this recv call.
      let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count < 0 {
        if errno == EINTR { continue }
        if errno == EAGAIN || errno == EWOULDBLOCK {
          throw Failure(description: "timed out waiting for reply")
        }
        throw failure("recv")
      }
      if count == 0 {
        guard headEnd != nil else { throw Failure(description: "connection closed before a reply head") }
        break
      }
      data.append(contentsOf: chunk[0..<count])
      if headEnd == nil, let end = findHeadEnd(data) {
        headEnd = end
        (status, framing) = try parseHead(Array(data[0..<end]))
      }
    }
    guard let headEnd else { throw Failure(description: "no reply head") }
    return Reply(status: status, body: try framing.body(data, bodyStart: headEnd))
  }

  private static func findHeadEnd(_ data: [UInt8]) -> Int? {
    guard data.count >= 4 else { return nil }
    for index in 0...(data.count - 4)
    where data[index] == 13 && data[index + 1] == 10 && data[index + 2] == 13 && data[index + 3] == 10 {
      return index + 4
    }
    return nil
  }

  private static func parseHead(_ head: [UInt8]) throws -> (Int, Framing) {
    let lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n")
    let statusParts = lines.first?.split(separator: " ") ?? []
    guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
      throw Failure(description: "bad status line \(lines.first ?? "")")
    }
    var framing = Framing.untilClose
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      let name = line[..<colon].lowercased()
      let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      if name == "content-length", let length = Int(value) { framing = .length(length) }
      if name == "transfer-encoding", value.lowercased().contains("chunked") { framing = .chunked }
    }
    return (status, framing)
  }

  /// How the reply body ends.
  private enum Framing {
    case length(Int), chunked, untilClose

    func isComplete(_ data: [UInt8], bodyStart: Int) -> Bool {
      switch self {
      case .length(let length): return data.count - bodyStart >= length
      case .chunked: return (try? dechunk(data[bodyStart...])) != nil
      case .untilClose: return false
      }
    }

    func body(_ data: [UInt8], bodyStart: Int) throws -> [UInt8] {
      switch self {
      case .length(let length):
        guard data.count - bodyStart >= length else {
          throw Failure(description: "body shorter than Content-Length")
        }
        return Array(data[bodyStart..<(bodyStart + length)])
      case .chunked:
        guard let body = try dechunk(data[bodyStart...]) else {
          throw Failure(description: "truncated chunked body")
        }
        return body
      case .untilClose:
        return Array(data[bodyStart...])
      }
    }

    /// The decoded body, or nil while the last chunk has not arrived.
    private func dechunk(_ raw: ArraySlice<UInt8>) throws -> [UInt8]? {
      var body: [UInt8] = []
      var index = raw.startIndex
      while true {
        guard let lineEnd = raw[index...].firstIndex(of: 10) else { return nil }
        let sizeText =
          String(decoding: raw[index..<lineEnd], as: UTF8.self)
          .split(separator: ";").first?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard let size = Int(sizeText, radix: 16) else {
          throw Failure(description: "bad chunk size \(sizeText)")
        }
        index = lineEnd + 1
        if size == 0 { return body }
        guard raw.endIndex - index >= size + 2 else { return nil }
        body.append(contentsOf: raw[index..<(index + size)])
        index += size + 2
      }
    }
  }
}
