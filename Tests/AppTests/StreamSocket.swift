import Glibc

/// A blocking loopback socket that hands back bytes as they arrive, to see what a streamed response
/// flushed before the rest.
final class StreamSocket {
  struct Failure: Error, CustomStringConvertible { let description: String }

  private let fd: Int32

  init(port: Int, timeoutSeconds: Int = 10) throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Failure(description: "socket failed") }
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    // The sockaddr_in lives on the stack for the duration of the call; its size is passed with it.
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard result == 0 else {
      Glibc.close(fd)
      throw Failure(description: "connect to \(port) failed")
    }
  }

  func send(_ text: String) throws {
    let bytes = Array(text.utf8)
    // Reads only the array's own bytes.
    let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    guard sent == bytes.count else { throw Failure(description: "short send") }
  }

  /// Reads until `marker` has arrived; returns everything read by this call.
  func read(until marker: String) throws -> String {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while !String(decoding: bytes, as: UTF8.self).contains(marker) {
      // recv writes at most chunk.count bytes into the array's own storage.
      let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      guard n > 0 else { throw Failure(description: "connection ended or timed out before \(marker)") }
      bytes += chunk[0..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The next bytes that arrive (at least one), as they came.
  func readSome() throws -> [UInt8] {
    var chunk = [UInt8](repeating: 0, count: 65536)
    // recv writes at most chunk.count bytes into the array's own storage.
    let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
    guard n > 0 else { throw Failure(description: "connection ended or timed out") }
    return Array(chunk[0..<n])
  }

  func close() { Glibc.close(fd) }
}
