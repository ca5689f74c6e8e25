import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A TCP proxy on loopback in front of one server, which a test can cut off as a network partition
/// would: while cut, no byte moves in either direction and new connections hang (the kernel still
/// accepts them, as a far host's SYN-ACK never comes but a client sees the same silence), so clients
/// see timeouts rather than resets. Healing lets bytes flow again, late ones included, as TCP
/// retransmission would. It is `script/lib/partition_proxy.py`, run by `python3` (a test dependency).
///
/// ```swift
/// let proxy = try await PartitionProxy(targetPort: redis.port)
/// proxy.cut()    // the client behind it times out
/// proxy.heal()
/// ```
public final class PartitionProxy: Sendable {
  /// The port clients connect to.
  public let port: Int
  private let process: ProcessRunner

  /// Starts forwarding a free loopback port to `127.0.0.1:targetPort`.
  public init(targetPort: Int) async throws {
    let script = try ProcessRunner.packageRoot() + "/script/lib/partition_proxy.py"
    process = try ProcessRunner(
      executable: "python3", arguments: ["-u", script, String(targetPort)], name: "partition-proxy")
    port = try await process.waitForListeningPort(pattern: #"proxy listening on (\d+)"#)
  }

  /// Stops every byte and every new connection.
  public func cut() { kill(process.pid, SIGUSR1) }

  /// Lets them flow again.
  public func heal() { kill(process.pid, SIGUSR2) }

  /// Stops the proxy.
  public func stop() async { await process.terminate() }
}
