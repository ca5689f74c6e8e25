import CEpoll
import Glibc

/// Thin, allocation-free wrappers around socket system calls on raw descriptors.
public enum Socket {
  /// Creates a nonblocking listening TCP socket bound to `host:port` (port 0 picks one).
  /// Returns the descriptor and the bound port.
  public static func listen(host: String, port: Int, backlog: Int32 = 1024) throws(SocketError) -> (
    fd: Int32, port: Int
  ) {
    var addr6 = in6_addr()
    var addr4 = in_addr()
    let isV6 = host.contains(":")
    if isV6 {
      guard inet_pton(AF_INET6, host, &addr6) == 1 else {
        throw SocketError("inet_pton \(host)", code: EINVAL)
      }
    } else {
      let name = host == "localhost" ? "127.0.0.1" : host
      guard inet_pton(AF_INET, name, &addr4) == 1 else {
        throw SocketError("inet_pton \(host)", code: EINVAL)
      }
    }
    let family = isV6 ? AF_INET6 : AF_INET
    let fd = try Syscall.check("socket") {
      socket(
        family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }
    do {
      var one: Int32 = 1
      _ = try Syscall.check("setsockopt") {
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
      }
      if isV6 {
        var sa = sockaddr_in6()
        sa.sin6_family = sa_family_t(AF_INET6)
        sa.sin6_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
        sa.sin6_addr = addr6
        try bind(fd, to: sa)
      } else {
        var sa = sockaddr_in()
        sa.sin_family = sa_family_t(AF_INET)
        sa.sin_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
        sa.sin_addr = addr4
        try bind(fd, to: sa)
      }
      _ = try Syscall.check("listen") { Glibc.listen(fd, backlog) }
      return (fd, try boundPort(fd))
    } catch {
      close(fd)
      throw error
    }
  }

  /// Binds `fd` to an address struct (`sockaddr_in` or `sockaddr_in6`).
  private static func bind<Address>(_ fd: Int32, to address: Address) throws(SocketError) {
    var address = address
    _ = try withUnsafePointer(to: &address) { p throws(SocketError) in
      // Reinterpreting a sockaddr_in/sockaddr_in6 as sockaddr is how the sockets API is meant to be called.
      try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sp throws(SocketError) in
        try Syscall.check("bind") { Glibc.bind(fd, sp, socklen_t(MemoryLayout<Address>.size)) }
      }
    }
  }

  /// The local port a socket is bound to.
  public static func boundPort(_ fd: Int32) throws(SocketError) -> Int {
    var ss = sockaddr_storage()
    var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
    _ = try withUnsafeMutablePointer(to: &ss) { p throws(SocketError) in
      // sockaddr_storage is large enough for any address; getsockname expects sockaddr*.
      try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sp throws(SocketError) in
        try Syscall.check("getsockname") { getsockname(fd, sp, &len) }
      }
    }
    let raw = withUnsafePointer(to: &ss) { p in
      // Read as sockaddr_in whatever the family: sin_port and sin6_port sit at the same offset, so the
      // port is found the same way for IPv4 and IPv6.
      p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port }
    }
    return Int(UInt16(bigEndian: raw))
  }

  /// Accepts one connection (nonblocking, close-on-exec) and returns it with the peer address text.
  public static func accept(_ fd: Int32) throws(SocketError) -> IOResult<(fd: Int32, peer: String)> {
    var buffer = (
      UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0)
    )
    return try withUnsafeMutableBytes(of: &buffer) { raw throws(SocketError) in
      // The tuple is 64 bytes of scratch space for the C call to write an address string into.
      let chars = raw.bindMemory(to: CChar.self)
      switch try Syscall.run("accept", { cepoll_accept(fd, chars.baseAddress, Int32(chars.count)) }) {
      case .wouldBlock: return .wouldBlock
      case .done(let client):
        chars[chars.count - 1] = 0
        return .done((client, chars.baseAddress.map { String(cString: $0) } ?? ""))
      }
    }
  }

  /// Turns Nagle's algorithm off, so small responses leave at once.
  public static func setNoDelay(_ fd: Int32) { _ = cepoll_set_nodelay(fd) }

  /// Reads into `buffer`; `.done(0)` means end of stream.
  @inlinable
  public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SocketError)
    -> IOResult<Int>
  {
    try Syscall.run("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
  }

  /// Writes from `buffer`, possibly partially.
  @inlinable
  public static func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SocketError) -> IOResult<Int>
  {
    try Syscall.run("write") { Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
  }

  /// Gathers several buffers into one write, possibly partially.
  @inlinable
  public static func writev(_ fd: Int32, _ vectors: UnsafeBufferPointer<iovec>) throws(SocketError)
    -> IOResult<Int>
  {
    var message = msghdr()
    // sendmsg only reads the iovec array during the call; MSG_NOSIGNAL avoids SIGPIPE on a closed peer.
    message.msg_iov = UnsafeMutablePointer(mutating: vectors.baseAddress)
    message.msg_iovlen = vectors.count
    return try Syscall.run("sendmsg") { Glibc.sendmsg(fd, &message, Int32(MSG_NOSIGNAL)) }
  }

  /// Whether the peer has sent bytes this side has not read yet: a peek that never blocks (retried on
  /// EINTR, like every call here), and false at end of stream or on an error.
  public static func hasUnreadInput(_ fd: Int32) -> Bool {
    var byte: UInt8 = 0
    let peeked = try? Syscall.run("recv") { Glibc.recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) }
    if case .done(let count)? = peeked { return count > 0 }
    return false
  }

  /// Closes a descriptor, ignoring errors (there is nothing useful to do about them).
  public static func close(_ fd: Int32) { _ = Glibc.close(fd) }

  /// Stops a listening socket: pending and new connection attempts are refused, and `accept` fails.
  public static func stopListening(_ fd: Int32) { _ = Glibc.shutdown(fd, Int32(SHUT_RD)) }

  /// Shuts down the sending side so the peer sees end of stream after the queued bytes.
  public static func shutdownWrite(_ fd: Int32) { _ = Glibc.shutdown(fd, Int32(SHUT_WR)) }
}
