"""Connects to svc's MCP endpoint with the official Python SDK (`mcp`),
lists the tools and calls svc_get_scrap; prints one JSON line."""
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
            print(json.dumps({
                "protocolVersion": str(init.protocol_version),
                "tools": sorted(t.name for t in tools.tools),
                "scrap": scrap,
            }))


asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
