// Public API of @arslan/vault-mcp: MCP grants and the capability-checked gateway (platform:node).
export {
  GrantRegistry,
  type GrantLogPort,
  type GrantRecord,
  type RequestRecord,
  type GrantRegistryOptions,
  MAX_PENDING_PER_REQUESTER,
  MAX_PENDING_PER_VAULT,
  REQUEST_EXPIRY_MS,
  REQUEST_PURGE_MS,
} from './grant-registry';
export { McpGateway, type McpGatewayDeps, grantSummary, issuedGrant, requestSummary } from './mcp-gateway';
export { MUTATING_TOOLS, TOOL_ACTION, TOOL_KINDS } from './mcp-access';
