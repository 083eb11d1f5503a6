#!/usr/bin/env python3
"""A TCP proxy that delays every byte by a fixed time in each direction (a target on another
host, for bench/width_rounds.sh's BENCH_DELAY_MS): python3 bench/delay_proxy.py LISTEN_PORT
TARGET_PORT DELAY_SECONDS, both on 127.0.0.1. Order is kept in each direction; bytes that
arrive together go on together once their delay has passed."""
import asyncio
import sys
import time

LISTEN, TARGET, DELAY = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])


async def pipe(reader, writer):
    queue = asyncio.Queue()

    async def read():
        while True:
            data = await reader.read(1 << 16)
            await queue.put((time.monotonic(), data))
            if not data:
                return

    async def write():
        while True:
            arrived, data = await queue.get()
            wait = arrived + DELAY - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            if not data:
                writer.close()
                return
            writer.write(data)
            await writer.drain()

    await asyncio.gather(read(), write())


async def handle(client_reader, client_writer):
    server_reader, server_writer = await asyncio.open_connection("127.0.0.1", TARGET)
    try:
        await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer))
    except (ConnectionError, OSError):
        client_writer.close()
        server_writer.close()


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", LISTEN)
    async with server:
        await server.serve_forever()


asyncio.run(main())
