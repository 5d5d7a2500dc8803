"""Connects to svc's MCP endpoint with the official Python SDK (`mcp`),
lists the tools, calls svc_get_scrap, svc_get_scrap_history and
svc_get_history_row (for the newest row); prints one JSON line."""
import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


async def main(url: str, key: str, scrap_id: str) -> None:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
    async with http, streamable_http_client(url, http_client=http) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            result = await session.call_tool("svc_get_scrap", {"scrapId": scrap_id})
            scrap = json.loads(result.content[0].text)
            result = await session.call_tool("svc_get_scrap_history", {"scrapId": scrap_id})
            history = json.loads(result.content[0].text)
            assert isinstance(history, list), history
            assert all(isinstance(row, dict) for row in history), history
            result = await session.call_tool("svc_get_history_row", {"historyId": history[0]["id"]})
            row = json.loads(result.content[0].text)
            print(json.dumps({
                "protocolVersion": str(init.protocol_version),
                "tools": sorted(t.name for t in tools.tools),
                "scrap": scrap,
                "history": history,
                "row": row,
            }))


asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
