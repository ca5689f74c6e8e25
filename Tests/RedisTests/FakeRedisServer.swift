import Foundation
import Glibc
import Sockets
import Synchronization

/// A loopback listener that plays a broken or hostile server: each connection gets `reply` after its
/// first bytes arrive (or at once with `greet`), then is held open until the server is stopped.
final class FakeRedisServer: Sendable {
  let port: Int
  private let listener: Int32
  private let stopping = Atomic<Bool>(false)
  /// Signalled when the serving thread has closed its connections.
  private let finished = DispatchSemaphore(value: 0)

  convenience init(reply: [UInt8], greet: Bool = false, closeAfterReply: Bool = false) throws {
    try self.init(replying: { reply }, greet: greet, closeAfterReply: closeAfterReply)
  }

  /// A server whose reply is read from `reply` for each connection as it is answered.
  init(replying reply: @escaping @Sendable () -> [UInt8], greet: Bool = false, closeAfterReply: Bool = false)
    throws
  {
    let (fd, port) = try Socket.listen(host: "127.0.0.1", port: 0)
    self.listener = fd
    self.port = port
    let thread = Thread { [self] in serve(reply: reply, greet: greet, closeAfterReply: closeAfterReply) }
    thread.start()
  }

  /// Stops accepting and closes every connection.
  func stop() {
    stopping.store(true, ordering: .relaxed)
    finished.wait()
    Socket.close(listener)
  }

  private func serve(reply: @Sendable () -> [UInt8], greet: Bool, closeAfterReply: Bool) {
    var clients: [Int32] = []
    var answered: Set<Int32> = []
    // Freed when this thread ends; only this thread uses it.
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
    defer {
      buffer.deallocate()
      for client in clients { Socket.close(client) }
      finished.signal()
    }
    while !stopping.load(ordering: .relaxed) {
      if case .done(let client)? = try? Socket.accept(listener) {
        clients.append(client.fd)
        if greet {
          send(reply(), to: client.fd)
          answered.insert(client.fd)
        }
      }
      for client in clients where !answered.contains(client) {
        if case .done(let count)? = try? Socket.read(client, into: buffer), count > 0 {
          send(reply(), to: client)
          answered.insert(client)
          if closeAfterReply { Socket.shutdownWrite(client) }
        }
      }
      // Real time: a nonblocking poll of raw sockets, one pass every 2 ms until stopped.
      usleep(2000)
    }
  }

  private func send(_ bytes: [UInt8], to fd: Int32) {
    var offset = 0
    while offset < bytes.count {
      // The array is only read during the call.
      let result = bytes.withUnsafeBytes { raw in
        try? Socket.write(fd, UnsafeRawBufferPointer(rebasing: raw[offset...]))
      }
      switch result {
      case .done(let written)?: offset += written
      case .wouldBlock?: usleep(1000)  // Real time: the peer's socket buffer is full.
      case nil: return
      }
    }
  }
}

/// A loopback IPv4 address for raw connects in tests.
struct SocketAddressForTests {
  let port: Int

  /// A TCP socket bound to a free loopback port without listening, and that port.
  static func boundWithoutListening() throws -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    // sockaddr_in passed as sockaddr for the duration of each call, as bind and getsockname expect.
    let bound = withUnsafeMutablePointer(to: &address) { p in
      p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard fd >= 0, bound else { throw SocketError("bind", code: errno) }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
  }

  /// Starts a nonblocking connect and returns the descriptor without waiting.
  func connectNonblocking() -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port)).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    // sockaddr_in passed as sockaddr, as connect expects.
    _ = withUnsafePointer(to: &address) { p in
      p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    return fd
  }
}
