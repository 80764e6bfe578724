// Strict request bodies (unknown fields → 400 before any state changes).
import { ACTION_KINDS, type CardAnswer } from '@arslan/desktop-agent';
import { z } from 'zod';

const id = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'must be an id');

export const startRunBodySchema = z.strictObject({
  message: z.string().min(1).max(100_000),
  /** Absolute path of an existing folder. */
  workspace: z.string().min(1).max(4096),
  conversationId: id.optional(),
  /** A provider name the daemon knows (its `[agent]` config); default: the configured one. */
  provider: z.string().min(1).max(100).optional(),
  model: z.string().min(1).max(200).optional(),
  tier: z.enum(['light', 'standard', 'deep']).optional(),
  /** false: nobody will answer cards; steps that need one are refused (APPR-017). Default true. */
  attended: z.boolean().optional(),
  allow: z.array(z.enum(ACTION_KINDS)).max(ACTION_KINDS.length).optional(),
});
export type StartRunBody = z.infer<typeof startRunBodySchema>;

export const sendMessageBodySchema = z.strictObject({
  text: z.string().min(1).max(100_000),
});

export const SURFACES = ['window', 'inbox', 'island', 'phone', 'chat', 'terminal'] as const;

export const cardAnswerBodySchema = z.strictObject({
  kind: z.enum(ACTION_KINDS),
  option: z.enum(['once', 'task', 'conversation', 'always', 'no']),
  note: z.string().max(10_000).optional(),
  surface: z.enum(SURFACES),
});

export function toCardAnswer(callId: string, body: z.infer<typeof cardAnswerBodySchema>): CardAnswer {
  return {
    callId,
    kind: body.kind,
    option: body.option,
    surface: body.surface,
    ...(body.note !== undefined ? { note: body.note } : {}),
  };
}

/** Names the first problems by path only (never echoes values). */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const at = issue.path.map(String).join('.');
      if (issue.code === 'unrecognized_keys') return `unknown field ${issue.keys.join(', ')}`;
      return `${at || '(body)'}: ${issue.message}`;
    })
    .join('; ');
}
