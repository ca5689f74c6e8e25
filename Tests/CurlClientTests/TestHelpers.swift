#if canImport(Glibc)
  import Glibc
#endif

/// Threads of this process.
func threadCount() -> Int { entries(in: "/proc/self/task") }

/// Open file descriptors of this process.
func openFileDescriptorCount() -> Int { entries(in: "/proc/self/fd") }

/// Directory entries, "." and ".." included.
func entries(in path: String) -> Int {
  guard let dir = opendir(path) else { return -1 }
  defer { closedir(dir) }
  var count = 0
  while readdir(dir) != nil { count += 1 }
  return count
}

/// A nonblocking listener on 127.0.0.1 with a free port.
func loopbackListener() -> (fd: Int32, port: Int) {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
  precondition(fd >= 0, "socket failed")
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = 0
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  // Safe: the pointer casts view a local sockaddr_in as sockaddr for the duration of each call.
  let bound = withUnsafeMutablePointer(to: &address) { pointer in
    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
      bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0 && listen(fd, 8) == 0
    }
  }
  precondition(bound, "bind failed")
  return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// A loopback port that was bound and closed, so connecting to it is refused.
func closedLoopbackPort() -> Int {
  let (fd, port) = loopbackListener()
  close(fd)
  return port
}

/// Accepts one connection on `fd` (polling, so no thread blocks), reads what arrives, answers
/// with `reply` and closes both sockets.
func answerOnce(fd: Int32, reply: String, within limit: Duration = .seconds(10)) async {
  defer { close(fd) }
  let deadline = ContinuousClock.now + limit
  while ContinuousClock.now < deadline {
    let connection = accept(fd, nil, nil)
    if connection < 0 {
      // Real time: a nonblocking accept on a raw socket, retried until the client connects.
      try? await Task.sleep(for: .milliseconds(5))
      continue
    }
    var buffer = [UInt8](repeating: 0, count: 4096)
    _ = recv(connection, &buffer, buffer.count, 0)
    _ = Array(reply.utf8).withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    close(connection)
    return
  }
}

/// A body of `count` bytes cycling through the letters.
func letters(_ count: Int, seed: Int = 0) -> [UInt8] {
  (0..<count).map { UInt8(0x61 + (($0 + seed) % 26)) }
}

/// Established TCP connections of this process whose remote end is `port` (the client side of
/// connections to a test server), as socket inode → local port. /proc/net/tcp lists every process's
/// sockets: only the ones whose inode is among this process's descriptors count, so another test
/// process connecting to a port it believed free (and this server took) does not. (A full run once
/// counted 33 for a pool of 32.) Keyed by inode, so a socket listed twice while the table changes
/// under the read counts once.
func establishedConnections(toPort port: Int) -> [Int: Int] {
  let mine = socketInodes()
  guard let file = fopen("/proc/net/tcp", "r") else { return [:] }
  defer { fclose(file) }
  var found: [Int: Int] = [:]
  var line = [CChar](repeating: 0, count: 512)
  while fgets(&line, Int32(line.count), file) != nil {
    let fields = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      .split(separator: " ")
    // Fields: slot, local "ADDR:PORT", remote "ADDR:PORT", state (01 = ESTABLISHED), queues, timer,
    // retransmits, uid, timeout, inode, ...
    guard fields.count > 9, let colon = fields[2].lastIndex(of: ":"),
      Int(fields[2][fields[2].index(after: colon)...], radix: 16) == port, fields[3] == "01",
      let inode = Int(fields[9]), mine.contains(inode), let localColon = fields[1].lastIndex(of: ":"),
      let localPort = Int(fields[1][fields[1].index(after: localColon)...], radix: 16)
    else { continue }
    found[inode] = localPort
  }
  return found
}

/// The inodes of this process's sockets, from the "socket:[inode]" links in /proc/self/fd.
func socketInodes() -> Set<Int> {
  guard let dir = opendir("/proc/self/fd") else { return [] }
  defer { closedir(dir) }
  var inodes = Set<Int>()
  var target = [CChar](repeating: 0, count: 64)
  while let entry = readdir(dir) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) {
      String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
    }
    let length = readlink("/proc/self/fd/" + name, &target, target.count - 1)
    guard length > 0 else { continue }
    let link = String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard link.hasPrefix("socket:["), link.hasSuffix("]") else { continue }
    if let inode = Int(link.dropFirst(8).dropLast()) { inodes.insert(inode) }
  }
  return inodes
}
