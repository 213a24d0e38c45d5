"""A minimal OpenAI-compatible endpoint that answers from a template after a fixed
delay: for measuring planprobe's own overhead, never for testing a model.

    python benchmarks/instant_endpoint.py PORT [DELAY_S]

Replies to /v1/chat/completions with a call of the first offered tool while the
conversation has fewer than 4 messages, then with a final answer. ``GET /calls`` answers
how many chat calls it has answered (benchmarks check the calls per case with it).
"""

from __future__ import annotations

import asyncio
import json
import sys

FINAL = {"role": "assistant", "content": "All tasks are done."}
CALLS = [0]


def answer(body: bytes) -> bytes:
    req = json.loads(body)
    tools = req.get("tools") or []
    if tools and len(req["messages"]) < 4:
        name = tools[0]["function"]["name"]
        msg = {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{len(req['messages'])}", "type": "function", "function": {"name": name, "arguments": "{}"}}]}
        finish = "tool_calls"
    else:
        msg, finish = FINAL, "stop"
    return json.dumps({
        "id": "x", "object": "chat.completion", "created": 0, "model": req.get("model", "m"),
        "choices": [{"index": 0, "message": msg, "finish_reason": finish}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
    }).encode()


async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            counting = head.startswith(b"GET /calls")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            body = await reader.readexactly(length) if length else b""
            if delay:
                await asyncio.sleep(delay)
            if body:
                CALLS[0] += 1
            data = answer(body) if body else (str(CALLS[0]).encode() if counting else b"{}")
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                         + str(len(data)).encode() + b"\r\n\r\n" + data)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionResetError):
        pass
    finally:
        writer.close()


async def main(port: int, delay: float) -> None:
    server = await asyncio.start_server(lambda r, w: handle(r, w, delay), "127.0.0.1", port, backlog=1024)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), float(sys.argv[2]) if len(sys.argv) > 2 else 0.0))
