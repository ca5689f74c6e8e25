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
  private let finished = Mutex(false)

  init(reply: [UInt8], greet: Bool = false, closeAfterReply: Bool = false) throws {
    let (fd, port) = try Socket.listen(host: "127.0.0.1", port: 0)
    self.listener = fd
    self.port = port
    let thread = Thread { [self] in serve(reply: reply, greet: greet, closeAfterReply: closeAfterReply) }
    thread.start()
  }

  /// Stops accepting and closes every connection.
  func stop() {
    stopping.store(true, ordering: .relaxed)
    while !finished.withLock({ $0 }) { usleep(1000) }
    Socket.close(listener)
  }

  private func serve(reply: [UInt8], greet: Bool, closeAfterReply: Bool) {
    var clients: [Int32] = []
    var answered: Set<Int32> = []
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
    defer {
      buffer.deallocate()
      for client in clients { Socket.close(client) }
      finished.withLock { $0 = true }
    }
    while !stopping.load(ordering: .relaxed) {
      if case .done(let client)? = try? Socket.accept(listener) {
        clients.append(client.fd)
        if greet {
          send(reply, to: client.fd)
          answered.insert(client.fd)
        }
      }
      for client in clients where !answered.contains(client) {
        if case .done(let count)? = try? Socket.read(client, into: buffer), count > 0 {
          send(reply, to: client)
          answered.insert(client)
          if closeAfterReply { Socket.shutdownWrite(client) }
        }
      }
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
      case .wouldBlock?: usleep(1000)
      case nil: return
      }
    }
  }
}
