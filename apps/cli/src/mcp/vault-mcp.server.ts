// `memories mcp serve` (MCP-4, MCP-5): an McpServer from the official SDK whose tools forward to
// the daemon's capability-checked `mcp_call`. Input schemas are the strict shared ones, so the SDK
// rejects unknown fields and bad types before anything is sent; the daemon checks them again.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  IpcError,
  MCP_TOOL_DESCRIPTIONS,
  MCP_TOOL_NAMES,
  MCP_TOOL_SCHEMAS,
  type McpToolName,
} from '@arslan/protocol';

export const MCP_SERVER_NAME = 'arslan-memories';

/** Forwards one call to the daemon; rejects with IpcError for a refusal. */
export type ToolForwarder = (
  tool: McpToolName,
  args: Record<string, unknown>,
) => Promise<Record<string, unknown>>;

function text(value: unknown, isError = false): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], ...(isError ? { isError: true } : {}) };
}

export function createVaultMcpServer(forward: ToolForwarder, version: string): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version },
    {
      capabilities: { tools: {} },
      instructions: 'Memory tools of one Arslan vault, limited by a short-lived grant.',
    },
  );
  for (const name of MCP_TOOL_NAMES) {
    server.registerTool(
      name,
      { description: MCP_TOOL_DESCRIPTIONS[name], inputSchema: MCP_TOOL_SCHEMAS[name] },
      async (args: Record<string, unknown>): Promise<CallToolResult> => {
        try {
          return text(await forward(name, args));
        } catch (error) {
          // Daemon refusals are tool errors the agent can read; their messages never hold the token.
          if (error instanceof IpcError)
            return text({ error: { code: error.code, message: error.message } }, true);
          return text(
            { error: { code: 'unavailable', message: 'the vault daemon cannot be reached' } },
            true,
          );
        }
      },
    );
  }
  return server;
}
