export { AgentRun, MAX_CONCURRENT_READS } from './agent-loop';
export {
  realLoopTimers,
  realSleep,
  type ContentWrapper,
  type LoopDeps,
  type LoopInput,
  type LoopTimers,
  type RefusedStep,
  type RunResult,
  type Sleep,
  type StepOutcome,
  type StepRecord,
} from './loop.types';
export type { NoticeCode, RunEvent, RunEventBody, RunEventType, ToolCallState } from './run-events';
export { RunRegistry, type RunListener, type RunRegistryOptions, type RunSnapshot } from './run-registry';
export {
  RunService,
  defaultIsExternalTool,
  type RunServiceDeps,
  type SendMessageResult,
  type SnapshotTarget,
  type StartRunInput,
  type StartedRun,
} from './run-service';
export { StaticToolCatalog, isMcpTool, toolSpec, type ResolvedCall, type ToolCatalog } from './tool-catalog';
export { CLOUD_GATED_TOOLS, isCloudProvider, memoryGatedCatalog } from './memory-gate';
