export {
  AGENT_DB_FILE,
  createAgentRuntime,
  registryCatalog,
  type AgentRuntime,
  type AgentRuntimeOptions,
} from './agent-runtime';
