// `arslan run` and `arslan chat`: the agent runtime in this process (no daemon), on
// `<data dir>/agent-cli/` (its own store and instance lock, so a CLI run never marks the daemon's
// live runs interrupted). `run` is headless: a step that needs a card is refused (APPR-017)
// unless its kind was pre-approved with --allow. `chat` answers cards at the prompt.
import { closeSync, openSync, readFileSync, realpathSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import {
  type AgentRuntime,
  type Card,
  type CardOption,
  type ModelProvider,
  type RunEvent,
  type RunResult,
  createAgentRuntime,
  createModelProvider,
  providerSearchFromModels,
} from '@arslan/desktop-agent';
import { ARSLAN_USAGE, type AgentFlags, EXIT, UsageError, parseArslanArgs } from './arslan-args';
import { type AgentSettings, resolveAgentSettings } from './arslan-settings';

export const CLI_AGENT_DIR = 'agent-cli';
export const LOCK_FILE = 'instance.lock';

export interface ArslanIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  platform: NodeJS.Platform;
  homedir: string;
  /** Registers the Ctrl-C handler; returns its removal. */
  onInterrupt(handler: () => void): () => void;
  /** Process liveness for stale lock files. */
  processAlive(pid: number): boolean;
}

class BusyError extends Error {}

/** DATA-06: one process per agent store; a lock left by a dead process is taken over. */
export function acquireLock(dir: string, alive: (pid: number) => boolean): () => void {
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      let pid = NaN;
      try {
        pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
      } catch {
        // unreadable: treat as stale
      }
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid))
        throw new BusyError(`${dir} is in use by another arslan process (pid ${pid}); pass --data DIR`);
      try {
        unlinkSync(path);
      } catch {
        // raced with another cleaner
      }
    }
  }
  throw new BusyError(`${dir} is in use by another arslan process; pass --data DIR`);
}

interface Session {
  runtime: AgentRuntime;
  provider: ModelProvider;
  /** Flags over the config's `[agent]` section. */
  settings: AgentSettings;
  workspace: string;
  release: () => void;
}

function openSession(flags: AgentFlags, io: ArslanIo): Session {
  let workspace: string;
  try {
    workspace = realpathSync(resolve(io.cwd, flags.workspace));
    if (!statSync(workspace).isDirectory()) throw new Error('not a folder');
  } catch {
    throw new UsageError(`--workspace ${flags.workspace} is not an existing folder`);
  }
  const settings = resolveAgentSettings(flags, io);
  const provider = createModelProvider(settings.provider, {
    baseUrl: settings.baseUrl,
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
  });
  const agentDir = join(settings.dataDir, CLI_AGENT_DIR);
  const endpoint = {
    kind: settings.provider,
    baseUrl: settings.baseUrl,
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
  };
  // WEB-01/02: web_search tries the run model's own provider search first (its key, its host only).
  const runtime = createAgentRuntime({
    dataDir: agentDir,
    tools: { web: { providerSearch: providerSearchFromModels([endpoint]) } },
  });
  let release: () => void;
  try {
    release = acquireLock(agentDir, io.processAlive);
  } catch (error) {
    runtime.close();
    throw error;
  }
  return { runtime, provider, settings, workspace, release };
}

const line = (out: Writable, text: string): void => void out.write(`${text}\n`);

function toolLine(event: RunEvent): string | undefined {
  if (event.type !== 'tool_state') return undefined;
  if (event.state === 'requested') return undefined;
  return `  [${event.tool}] ${event.state}${event.detail ? `: ${event.detail.split('\n')[0]}` : ''}`;
}

export function exitCodeOf(result: RunResult): number {
  switch (result.status) {
    case 'succeeded':
    case 'wrapped_up':
      return result.refused.length > 0 ? EXIT.refused : EXIT.ok;
    case 'budget_exceeded':
      return EXIT.budget;
    case 'stopped':
      return EXIT.stopped;
    default:
      return EXIT.failed;
  }
}

/** The `--json` document of `arslan run`. */
export function runJson(result: RunResult): Record<string, unknown> {
  return {
    answer: result.answer,
    status: result.status,
    steps: result.steps.map((s) => ({ tool: s.tool, arguments: s.args, outcome: s.outcome })),
    usage: result.usage,
    cost_usd: result.costUsd,
    refused: result.refused.map((r) => ({ tool: r.tool, kind: r.kind, summary: r.summary })),
    run_id: result.runId,
    conversation_id: result.conversationId,
  };
}

async function runOnce(
  flags: AgentFlags & { task: string },
  session: Session,
  io: ArslanIo,
): Promise<number> {
  const { service } = session.runtime;
  const started = service.startRun({
    message: flags.task,
    workspace: session.workspace,
    provider: session.provider,
    model: session.settings.model,
    attended: false,
    allow: flags.allow,
    ...(session.settings.tier ? { tier: session.settings.tier } : {}),
  });
  const subscription = service.snapshotAndSubscribe({ runId: started.runId }, (event) => {
    const text = toolLine(event);
    if (text !== undefined) line(io.stderr, text);
    else if (event.type === 'notice') line(io.stderr, `  ! ${event.message}`);
  });
  const removeInterrupt = io.onInterrupt(() => {
    line(io.stderr, 'arslan: stopping…');
    service.stop(started.runId);
  });
  let result: RunResult;
  try {
    result = await started.result;
  } finally {
    removeInterrupt();
    subscription?.unsubscribe();
  }
  if (flags.json) line(io.stdout, JSON.stringify(runJson(result), null, 2));
  else {
    if (result.answer) line(io.stdout, result.answer);
    for (const r of result.refused)
      line(io.stderr, `arslan: refused ${r.tool} (${r.summary}): needs a card; allow with --allow ${r.kind}`);
    line(
      io.stderr,
      `arslan: ${result.status} · ${result.usage.requests} model requests · ${result.usage.toolCalls} tool calls · $${result.costUsd.toFixed(4)}`,
    );
  }
  return exitCodeOf(result);
}

/** y = once (or the card's first option), t = task, c = conversation, a = always, n [note] = no. */
export function parseCardAnswer(
  text: string,
  options: readonly CardOption[],
): { option: CardOption; note?: string } | 'not_offered' | undefined {
  const match = /^([ytcan])(?:\s+(.*))?$/i.exec(text.trim());
  if (!match) return undefined;
  const letter = match[1]!.toLowerCase();
  const note = match[2]?.trim();
  if (letter !== 'n' && note) return undefined; // a sentence starting with "a …" is a message
  const wanted: CardOption =
    letter === 'y'
      ? options.includes('once')
        ? 'once'
        : (options[0] ?? 'once')
      : letter === 't'
        ? 'task'
        : letter === 'c'
          ? 'conversation'
          : letter === 'a'
            ? 'always'
            : 'no';
  if (!options.includes(wanted)) return 'not_offered';
  return wanted === 'no' && note ? { option: 'no', note } : { option: wanted };
}

const LETTER: Record<CardOption, string> = { once: 'y', task: 't', conversation: 'c', always: 'a', no: 'n' };

function cardPrompt(card: Card): string {
  const choices = card.options.map((o) => `${LETTER[o]}=${o}`).join(' ');
  return `\n? ${card.summary} [${card.kind}] — ${choices} (n <note> to say why)`;
}

async function chat(flags: AgentFlags, session: Session, io: ArslanIo): Promise<number> {
  const { service } = session.runtime;
  const rl = createInterface({ input: io.stdin, output: io.stdout, terminal: io.isTTY });
  const pending: string[] = [];
  let conversationId: string | undefined;
  let live: { runId: string; result: Promise<RunResult>; unsubscribe: () => void } | undefined;
  let card: Card | undefined;
  let closed = false;
  let finishing = false;
  let resolveDone: (code: number) => void = () => undefined;
  const done = new Promise<number>((r) => (resolveDone = r));

  const prompt = (): void => {
    if (!closed) rl.prompt();
  };

  const onEvent = (event: RunEvent): void => {
    switch (event.type) {
      case 'text_delta':
        io.stdout.write(event.delta);
        break;
      case 'narration':
        io.stdout.write('\n');
        break;
      case 'user_message':
        if (event.steered) line(io.stderr, '  (added to the running reply)');
        break;
      case 'card_opened':
        card = event.card;
        line(io.stdout, cardPrompt(event.card));
        prompt();
        setImmediate(pump); // piped input waiting for this card (outside the event's fan-out)
        break;
      case 'card_closed':
        if (card?.callId === event.callId) card = undefined;
        line(io.stderr, `  (card ${event.resolution.status}${event.surface ? ` via ${event.surface}` : ''})`);
        break;
      case 'notice':
        line(io.stderr, `  ! ${event.message}`);
        break;
      case 'run_finished':
        io.stdout.write('\n');
        if (event.status !== 'succeeded') line(io.stderr, `  [${event.status}]`);
        break;
      default: {
        const text = toolLine(event);
        if (text !== undefined) line(io.stderr, text);
      }
    }
  };

  const attach = (runId: string, result: Promise<RunResult>): void => {
    const sub = service.snapshotAndSubscribe({ runId }, onEvent);
    for (const event of sub?.snapshot.events ?? []) if (event.type === 'card_opened') onEvent(event);
    live = { runId, result, unsubscribe: sub?.unsubscribe ?? (() => undefined) };
    void result.then(
      () => settled(runId),
      () => settled(runId),
    );
  };

  const settled = (runId: string): void => {
    if (live?.runId !== runId) return;
    live.unsubscribe();
    live = undefined;
    card = undefined;
    // LOOP-19: a message that arrived during the final answer runs as the next turn.
    const next = conversationId ? service.registry.latestRunOf(conversationId) : undefined;
    if (next && next !== runId && service.registry.status(next) === 'running') {
      const taken = service.snapshotAndSubscribe({ runId: next }, onEvent);
      live = {
        runId: next,
        result: new Promise<RunResult>((r) => {
          const poll = setInterval(() => {
            const result = service.getResult(next);
            if (result) {
              clearInterval(poll);
              r(result);
            }
          }, 50);
        }),
        unsubscribe: taken?.unsubscribe ?? (() => undefined),
      };
      void live.result.then(() => settled(next));
      return;
    }
    prompt();
    pump();
  };

  const handle = (text: string): void => {
    if (card) {
      const answer = parseCardAnswer(text, card.options);
      if (answer === 'not_offered') {
        line(io.stderr, `  this card offers: ${card.options.map((o) => `${LETTER[o]}=${o}`).join(' ')}`);
        prompt();
        return;
      }
      if (answer) {
        const answered = service.answerCard({
          callId: card.callId,
          kind: card.kind,
          option: answer.option,
          surface: 'terminal',
          ...(answer.note ? { note: answer.note } : {}),
        });
        if (!answered.ok) line(io.stderr, `  (not accepted: ${answered.reason})`);
        return;
      }
    }
    if (live && conversationId) {
      const sent = service.sendMessage(conversationId, text); // TURN-03: answers a waiting card No
      if (sent.delivered === 'answered_card')
        line(io.stderr, '  (answered the card No, with your message as note)');
      if (sent.delivered === 'next_turn') line(io.stderr, '  (runs after this reply)');
      return;
    }
    const started = service.startRun({
      message: text,
      workspace: session.workspace,
      provider: session.provider,
      model: session.settings.model,
      attended: true,
      allow: flags.allow,
      ...(conversationId ? { conversationId } : {}),
      ...(session.settings.tier ? { tier: session.settings.tier } : {}),
    });
    conversationId = started.conversationId;
    attach(started.runId, started.result);
  };

  /** A terminal steers at once; piped input is taken turn by turn (after a reply or at a card). */
  const pump = (): void => {
    while (pending.length > 0 && (io.isTTY || !live || card)) {
      const text = pending.shift()!.trim();
      if (text !== '') handle(text);
      else prompt();
    }
    if (closed && pending.length === 0) void finish();
  };

  const finish = async (): Promise<void> => {
    if (finishing) return;
    if (live && !io.isTTY && !card) return; // piped: let the reply end first
    finishing = true;
    const running = live;
    if (running) {
      service.stop(running.runId);
      await running.result.catch(() => undefined);
    }
    removeInterrupt();
    resolveDone(EXIT.ok);
  };

  const interrupt = (): void => {
    if (live) {
      line(io.stderr, '\n  (stopping the reply)');
      service.stop(live.runId);
    } else {
      line(io.stderr, '\n  (Ctrl-D exits)');
      prompt();
    }
  };
  const removeInterrupt = io.onInterrupt(interrupt);
  rl.on('SIGINT', interrupt);
  rl.on('line', (text) => {
    pending.push(text);
    pump();
  });
  rl.on('close', () => {
    closed = true;
    pump();
  });
  rl.setPrompt('> ');
  line(
    io.stderr,
    `arslan chat · ${session.settings.provider} ${session.settings.model} · workspace ${session.workspace} · Ctrl-C stops a reply, Ctrl-D exits`,
  );
  prompt();
  const code = await done;
  rl.close();
  return code;
}

export async function runArslan(argv: readonly string[], io: ArslanIo): Promise<number> {
  let session: Session | undefined;
  try {
    const parsed = parseArslanArgs(argv);
    if (parsed.command === 'help') {
      line(io.stdout, ARSLAN_USAGE);
      return EXIT.ok;
    }
    session = openSession(parsed, io);
    return parsed.command === 'run' ? await runOnce(parsed, session, io) : await chat(parsed, session, io);
  } catch (error) {
    if (error instanceof UsageError) {
      line(io.stderr, `arslan: ${error.message}\n${ARSLAN_USAGE}`);
      return EXIT.usage;
    }
    if (error instanceof BusyError) {
      line(io.stderr, `arslan: ${error.message}`);
      return EXIT.busy;
    }
    line(io.stderr, `arslan: internal: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.internal;
  } finally {
    if (session) {
      session.runtime.close();
      session.release();
    }
  }
}
