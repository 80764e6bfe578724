// The built-in tool set of this issue, assembled with one options object.
import type { ToolContext } from '../ports/tool.port';
import { type AttachFileOptions, createAttachFileTool } from './attach-file';
import { createFileTools, type FileToolsOptions } from './file-tools';
import { createPlanTool, type PlanStore } from './plan-tool';
import { createRecallTool, type RecallPort } from './recall-tool';
import { type AnyTool, ToolRegistry } from './registry';
import { createTerminalTool, type TerminalOptions } from './terminal';
import { createWebExtractTool, createWebSearchTool, type WebToolsOptions } from './web-tools';

export interface BuiltinToolsOptions {
  files?: FileToolsOptions;
  terminal?: TerminalOptions;
  web?: WebToolsOptions;
  attach?: AttachFileOptions;
  plans?: PlanStore;
  /** The vault's retrieval port; without it there is no `recall` tool. */
  recall?: RecallPort;
  /** Readable folders besides the workspace, shared by read_file/list_dir and attach_file (FILE-02). */
  extraReadRoots?: (ctx: ToolContext) => string[];
}

export function createBuiltinTools(options: BuiltinToolsOptions = {}): AnyTool[] {
  const extraReadRoots = options.extraReadRoots;
  const tools: AnyTool[] = [
    ...createFileTools({ extraReadRoots, ...options.files }),
    createTerminalTool(options.terminal),
    createWebSearchTool(options.web),
    createWebExtractTool(options.web),
    createPlanTool(options.plans),
    createAttachFileTool({ extraReadRoots, ...options.attach }),
  ];
  if (options.recall) tools.push(createRecallTool(options.recall));
  return tools;
}

export function createBuiltinRegistry(options: BuiltinToolsOptions = {}): ToolRegistry {
  const registry = new ToolRegistry();
  for (const tool of createBuiltinTools(options)) registry.register(tool);
  return registry;
}
