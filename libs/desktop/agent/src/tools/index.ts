// Public surface of the built-in tools (TOOL-*, FILE-*, WEB-*, SEC-002..016, WRITE-001..004).
export {
  ToolRegistry,
  ConversationTools,
  toJsonSchema,
  MAX_ON_DEMAND_TOOLS,
  FIND_TOOLS,
  USE_TOOL,
  type AnyTool,
  type RegisterOptions,
  type ResolveResult,
  type ConversationToolsOptions,
} from './registry';
export { createBuiltinTools, createBuiltinRegistry, type BuiltinToolsOptions } from './builtin-tools';
export {
  wrapExternal,
  wrapToolOutput,
  neutraliseMarkers,
  type BoundaryKind,
  type WrapOptions,
} from './boundary';
export {
  createReadFileTool,
  createListDirTool,
  createWriteFileTool,
  createEditFileTool,
  createFileTools,
  type FileToolsOptions,
} from './file-tools';
export { atomicWriteFile, NEW_FILE_MODE, type AtomicWriteFs, type AtomicWriteOptions } from './atomic-write';
export {
  isHiddenOrCredentialName,
  resolveForRead,
  resolveForWrite,
  PathRefusal,
  type ReadTarget,
  type WriteTarget,
} from './paths';
export {
  createTerminalTool,
  TERMINAL_DEFAULT_TIMEOUT_MS,
  TERMINAL_MAX_TIMEOUT_MS,
  type TerminalArgs,
  type TerminalOptions,
} from './terminal';
export {
  createUnshareSandbox,
  createSeatbeltSandbox,
  defaultCommandSandbox,
  UNAVAILABLE_SANDBOX,
  type CommandSandbox,
  type UnshareSandboxOptions,
} from './sandbox';
export { classifyNetworkCommand, tokenizeCommand, type NetworkVerdict } from './network-classifier';
export { sweepToolOutput, toolOutputDir, TOOL_OUTPUT_DIR, TOOL_OUTPUT_RETENTION_MS } from './tool-output';
export {
  guardedFetch,
  checkUrl,
  classifyAddress,
  hostnameRefusal,
  systemResolver,
  EgressRefusal,
  type AddressClass,
  type CheckedTarget,
  type EgressOptions,
  type GuardedRequest,
  type GuardedResponse,
  type ResolvedAddress,
  type Resolver,
} from './egress';
export { htmlToText, decodeEntities, type PageText } from './html-text';
export {
  createWebSearchTool,
  createWebExtractTool,
  parseDuckDuckGoHtml,
  type SearchEngineConfig,
  type SearchHit,
  type WebToolsOptions,
} from './web-tools';
export {
  providerSearchTarget,
  providerSearchForTurn,
  providerSearchFromModels,
  type ConfiguredEndpoint,
  runProviderSearch,
  ProviderSearchError,
  type ProviderSearchKind,
  type ProviderSearchTarget,
  type TurnModelConfig,
} from './web-provider-search';
export {
  createPlanTool,
  createMemoryPlanStore,
  PLAN_STATUSES,
  type PlanStep,
  type PlanStore,
} from './plan-tool';
export { createAttachFileTool, ATTACH_MAX_BYTES, type AttachFileOptions } from './attach-file';
export { createRecallTool, type RecallHit, type RecallPort } from './recall-tool';
