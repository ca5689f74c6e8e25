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
/// retransmission would. It is a small asyncio script run by `python3` (a test dependency).
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
    process = try ProcessRunner(
      executable: "python3", arguments: ["-u", "-c", Self.script, String(targetPort)], name: "partition-proxy"
    )
    port = try await process.waitForListeningPort(pattern: #"proxy listening on (\d+)"#)
  }

  /// Stops every byte and every new connection.
  public func cut() { kill(process.pid, SIGUSR1) }

  /// Lets them flow again.
  public func heal() { kill(process.pid, SIGUSR2) }

  /// Stops the proxy.
  public func stop() async { await process.terminate() }

  private static let script = """
    import asyncio, signal, sys
    target = int(sys.argv[1])

    async def main():
        flowing = asyncio.Event()
        flowing.set()
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGUSR1, flowing.clear)
        loop.add_signal_handler(signal.SIGUSR2, flowing.set)

        async def pump(reader, writer):
            try:
                while True:
                    await flowing.wait()
                    data = await reader.read(65536)
                    if not data:
                        break
                    await flowing.wait()
                    writer.write(data)
                    await writer.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                writer.close()

        async def accept(client_reader, client_writer):
            await flowing.wait()
            try:
                server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target)
            except OSError:
                client_writer.close()
                return
            await asyncio.gather(pump(client_reader, server_writer), pump(server_reader, client_writer))

        server = await asyncio.start_server(accept, "127.0.0.1", 0)
        print("proxy listening on %d" % server.sockets[0].getsockname()[1], flush=True)
        await server.serve_forever()

    asyncio.run(main())
    """
}
