// MIG-01: the ordered, registered list of numbered migrations of the agent database.
// Never edit a shipped migration; append a new one.
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const V1_SQL = `
CREATE TABLE conversations (
  id TEXT PRIMARY KEY,
  title TEXT,
  created_at INTEGER NOT NULL
);
-- DATA-09: AUTOINCREMENT so ids are never reused, even after deletes (undo).
CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  run_id TEXT,
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
  text TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
-- DATA-07: tasks (current state), revisions, attempts, events and actions are separate tables.
CREATE TABLE tasks (
  id TEXT PRIMARY KEY,
  conversation_id TEXT REFERENCES conversations(id),
  status TEXT NOT NULL CHECK (status IN ('open', 'running', 'succeeded', 'failed', 'stopped', 'unverified', 'interrupted')),
  current_revision INTEGER NOT NULL,
  current_attempt_id TEXT,
  row_version INTEGER NOT NULL DEFAULT 1,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE task_revisions (
  task_id TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  revision INTEGER NOT NULL,
  spec_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (task_id, revision)
);
CREATE TABLE attempts (
  id TEXT PRIMARY KEY,
  task_id TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  revision INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'stopped', 'interrupted', 'superseded')),
  row_version INTEGER NOT NULL DEFAULT 1,
  progress_json TEXT NOT NULL DEFAULT '{}',
  started_at INTEGER NOT NULL,
  ended_at INTEGER
);
CREATE TABLE acceptance_results (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  attempt_id TEXT NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
  revision INTEGER NOT NULL,
  item_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('passed', 'failed', 'not_run', 'not_applicable')),
  evidence_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (attempt_id, item_id)
);
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  conversation_id TEXT NOT NULL REFERENCES conversations(id),
  task_id TEXT REFERENCES tasks(id),
  attempt_id TEXT REFERENCES attempts(id),
  mode TEXT NOT NULL CHECK (mode IN ('interactive', 'headless', 'scheduled')),
  status TEXT NOT NULL,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  tier TEXT NOT NULL,
  answer TEXT,
  checkpoint_json TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  ended_at INTEGER
);
CREATE INDEX runs_status ON runs(status);
CREATE TABLE steps (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step_index INTEGER NOT NULL,
  narration TEXT NOT NULL DEFAULT '',
  stop_reason TEXT,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, step_index)
);
CREATE TABLE tool_calls (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  call_id TEXT NOT NULL,
  step_index INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  tool TEXT NOT NULL,
  args_json TEXT NOT NULL,
  outcome TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (run_id, call_id)
);
CREATE TABLE trajectory (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  item_json TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
-- CKPT-02: ordered, replayable run events.
CREATE TABLE events (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  payload_json TEXT NOT NULL,
  at INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)
);
-- CKPT-07 / SIDE-002: real operations and their effect state.
CREATE TABLE actions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  task_id TEXT REFERENCES tasks(id),
  call_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  kind TEXT,
  summary TEXT NOT NULL DEFAULT '',
  state TEXT NOT NULL CHECK (state IN ('preparing', 'started', 'confirmed', 'failed', 'unknown', 'cancelled')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (run_id, call_id)
);
-- APPR-*: one card per call (the approvals queue) and remembered grants.
CREATE TABLE cards (
  call_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  conversation_id TEXT,
  kind TEXT NOT NULL,
  summary TEXT NOT NULL,
  options_json TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'expired', 'cancelled')),
  option TEXT,
  note TEXT,
  surface TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  closed_at INTEGER
);
CREATE TABLE grants (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  scope TEXT NOT NULL CHECK (scope IN ('task', 'conversation', 'always')),
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  conversation_id TEXT,
  task_id TEXT,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
-- APPR-017: steps an unattended run refused, listed in the Inbox.
CREATE TABLE inbox_items (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL,
  call_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  kind TEXT NOT NULL,
  summary TEXT NOT NULL,
  reason TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
`;

// CKPT-11..17: undo-this-turn checkpoints, one per turn (run) that changed the working folder.
// Runs of an undone turn stay on record (what was done, incl. effects undo cannot reach: CKPT-17)
// but are marked and leave the conversation.
const V2_SQL = `
CREATE TABLE turn_checkpoints (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL UNIQUE REFERENCES runs(id),
  conversation_id TEXT NOT NULL REFERENCES conversations(id),
  workspace TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('saving', 'saved', 'not_saved', 'undone', 'expired')),
  reason TEXT,
  file_count INTEGER NOT NULL DEFAULT 0,
  bytes INTEGER NOT NULL DEFAULT 0,
  not_saved_json TEXT NOT NULL DEFAULT '[]',
  after_recorded INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX turn_checkpoints_conversation ON turn_checkpoints(conversation_id);
CREATE INDEX turn_checkpoints_created ON turn_checkpoints(created_at);
ALTER TABLE runs ADD COLUMN undone_at INTEGER;
`;

// CTX-06/07/09: the rolling summary of a conversation (the messages themselves never change) and
// the trusted per-conversation settings each turn loads (written only through settings APIs).
const V3_SQL = `
CREATE TABLE context_summaries (
  conversation_id TEXT PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
  summary_json TEXT NOT NULL,
  folded_message_ids_json TEXT NOT NULL DEFAULT '[]',
  model TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE conversation_settings (
  conversation_id TEXT PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
  reply_language TEXT,
  local_memory INTEGER NOT NULL DEFAULT 1 CHECK (local_memory IN (0, 1)),
  cloud_memory INTEGER NOT NULL DEFAULT 0 CHECK (cloud_memory IN (0, 1)),
  updated_at INTEGER NOT NULL
);
`;

// ARCH-18 / MEM-10: one row per model request of a run — the endpoint (provider kind and origin,
// never a key), the model, and which items went in (trajectory positions, message ids, summary
// id, materials with their asset revisions). Ids and counts only: no message or memory content.
// Summaries gain an id per saved version so a request can name the one it carried.
const V4_SQL = `
CREATE TABLE model_requests (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step INTEGER NOT NULL,
  purpose TEXT NOT NULL CHECK (purpose IN ('step', 'summary')),
  provider TEXT NOT NULL,
  endpoint_origin TEXT,
  model TEXT NOT NULL,
  included_json TEXT NOT NULL,
  context_json TEXT,
  attempts INTEGER NOT NULL DEFAULT 1,
  outcome TEXT NOT NULL CHECK (outcome IN ('sent', 'ok', 'failed', 'broken', 'stopped')),
  created_at INTEGER NOT NULL
);
CREATE INDEX model_requests_run ON model_requests(run_id, id);
ALTER TABLE context_summaries ADD COLUMN summary_id TEXT;
`;

// PROV-04: the conversation's chosen model (a configured name; trusted, set only by a settings
// surface). DATA-02: file artifacts copied into the app data folder, referenced per run — the
// local API serves only these rows' files (FILE-05), never a path from a client.
const V5_SQL = `
ALTER TABLE conversation_settings ADD COLUMN model_name TEXT;
CREATE TABLE artifacts (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  call_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  file_name TEXT NOT NULL,
  media_type TEXT NOT NULL,
  stored_name TEXT NOT NULL UNIQUE,
  bytes INTEGER NOT NULL CHECK (bytes >= 0),
  sha256 TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX artifacts_run ON artifacts(run_id, created_at);
`;

// WORK-07..13: background jobs — the task, its originating conversation (cards, approvals,
// progress) and its own conversation (context), queued until one of the (3) slots is free.
const V6_SQL = `
CREATE TABLE background_jobs (
  id TEXT PRIMARY KEY,
  origin_conversation_id TEXT NOT NULL REFERENCES conversations(id),
  job_conversation_id TEXT NOT NULL,
  message TEXT NOT NULL,
  workspace TEXT NOT NULL,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  tier TEXT NOT NULL,
  attended INTEGER NOT NULL CHECK (attended IN (0, 1)),
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled', 'interrupted')),
  run_id TEXT,
  task_id TEXT,
  answer TEXT,
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  ended_at INTEGER
);
CREATE INDEX background_jobs_origin ON background_jobs(origin_conversation_id, created_at);
`;

export const AGENT_MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'agent_core', sql: V1_SQL },
  { version: 2, name: 'turn_checkpoints', sql: V2_SQL },
  { version: 3, name: 'context_summaries', sql: V3_SQL },
  { version: 4, name: 'model_requests', sql: V4_SQL },
  { version: 5, name: 'conversation_models_and_artifacts', sql: V5_SQL },
  { version: 6, name: 'background_jobs', sql: V6_SQL },
];
