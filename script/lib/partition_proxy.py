#!/usr/bin/env python3
"""A TCP proxy on loopback that a test can cut off as a network partition would.

Usage: partition_proxy.py TARGET_PORT   (prints "proxy listening on PORT")
SIGUSR1 cuts it: no byte moves either way and new connections hang. SIGUSR2 heals it: bytes flow
again, late ones included, as TCP retransmission would deliver them. Tests/TestSupport's
PartitionProxy runs it.
"""
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
