// Approval cards (APPR-*, TURN-03..06): one card per call, bound to its call id and action kind.
import type { ActionKind } from './tool.port';

export type CardOption = 'once' | 'task' | 'conversation' | 'always' | 'no';
export type Surface = 'window' | 'inbox' | 'island' | 'phone' | 'chat' | 'terminal';

export interface Card {
  callId: string;
  runId: string;
  kind: ActionKind;
  summary: string;
  /** In order (APPR-005/006/007). */
  options: CardOption[];
  createdAt: number;
  /** createdAt + 30 min (APPR-016). */
  expiresAt: number;
}

export interface CardAnswer {
  callId: string;
  kind: ActionKind;
  option: CardOption;
  note?: string;
  surface: Surface;
}

export type CardOutcome =
  | { status: 'approved'; option: Exclude<CardOption, 'no'> }
  | { status: 'denied'; note?: string }
  /** APPR-016: nobody answered — not a denial. */
  | { status: 'expired' };
