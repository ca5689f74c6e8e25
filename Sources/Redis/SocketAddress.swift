import Glibc
import Sockets

/// A resolved TCP address and the nonblocking connect that starts with it.
struct SocketAddress: Sendable {
  private var storage: sockaddr_storage
  private var length: socklen_t

  /// Resolves `host` (a name or an IP address) with getaddrinfo; the first TCP address wins.
  /// A name lookup may block the calling thread briefly; IP addresses never do.
  static func resolve(host: String, port: Int) throws(RedisError) -> SocketAddress {
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    hints.ai_flags = AI_NUMERICSERV
    var list: UnsafeMutablePointer<addrinfo>?
    let rc = getaddrinfo(host, String(port), &hints, &list)
    guard rc == 0, let first = list, let address = first.pointee.ai_addr else {
      let reason = rc == 0 ? "no address" : String(cString: gai_strerror(rc))
      if list != nil { freeaddrinfo(list) }
      throw .connectionLost("cannot resolve \(host): \(reason)")
    }
    defer { freeaddrinfo(list) }
    var storage = sockaddr_storage()
    let length = min(first.pointee.ai_addrlen, socklen_t(MemoryLayout<sockaddr_storage>.size))
    // getaddrinfo's address is valid until freeaddrinfo; it is copied (at most the storage's size) first.
    withUnsafeMutableBytes(of: &storage) { target in
      target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(length)))
    }
    return SocketAddress(storage: storage, length: length)
  }

  /// Opens a nonblocking, close-on-exec TCP socket with Nagle off and starts connecting it.
  /// The connection completes (or fails, see `pendingError`) when the socket becomes writable.
  func startConnect() throws(SocketError) -> Int32 {
    let family = Int32(storage.ss_family)
    let fd = try Syscall.check("socket") {
      socket(
        family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }
    Socket.setNoDelay(fd)
    var address = storage
    let length = self.length
    do {
      _ = try withUnsafePointer(to: &address) { p throws(SocketError) in
        // sockaddr_storage viewed as sockaddr for the call, as the sockets API expects.
        try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sp throws(SocketError) in
          try Syscall.run("connect") { Glibc.connect(fd, sp, length) }
        }
      }
    } catch  where error.code == EINPROGRESS {
      // The normal outcome for a nonblocking connect.
    } catch {
      Socket.close(fd)
      throw error
    }
    return fd
  }

  /// The error a nonblocking connect ended with (0 when it succeeded).
  static func pendingError(_ fd: Int32) -> Int32 {
    var code: Int32 = 0
    var size = socklen_t(MemoryLayout<Int32>.size)
    let rc = try? Syscall.check("getsockopt") { getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &size) }
    return rc == nil ? EBADF : code
  }
}
