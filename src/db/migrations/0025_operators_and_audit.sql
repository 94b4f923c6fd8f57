-- The console for a team (docs/console.md): operators with their own sign-in and role, an audit
-- trail of every change made through the console or the admin API, what an operator needs to tell
-- tokens apart, and the backlog's true age.

-- An operator signs in with an email and a password (scrypt, never in clear). A failed sign-in is
-- counted on the row, so that guessing one account is throttled across every process.
CREATE TABLE operators (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email             text        NOT NULL,
  role              text        NOT NULL CHECK (role IN ('admin', 'support', 'viewer')),
  password_hash     text        NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  disabled_at       timestamptz,
  failed_sign_ins   integer     NOT NULL DEFAULT 0,
  failures_reset_at timestamptz
);
CREATE UNIQUE INDEX operators_email_key ON operators (lower(email));

-- A session is an operator's, or the admin token's (NULL). Deleting the operator ends them.
ALTER TABLE console_sessions
  ADD COLUMN operator_id bigint REFERENCES operators (id) ON DELETE CASCADE,
  ADD COLUMN address text;
CREATE INDEX console_sessions_operator_idx ON console_sessions (operator_id) WHERE operator_id IS NOT NULL;

-- Who did what, when, to what, from where, and how it ended. Written in the same transaction as
-- the change it records (a refused or denied action in one of its own). No foreign keys: the
-- record outlives the operator, user or task it names. Never a secret in `detail`.
CREATE TABLE audit_log (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at          timestamptz NOT NULL DEFAULT now(),
  actor_kind  text        NOT NULL CHECK (actor_kind IN ('operator', 'admin_token', 'cli')),
  operator_id bigint,
  actor       text        NOT NULL,
  action      text        NOT NULL,
  target_kind text,
  target_id   text,
  address     text,
  outcome     text        NOT NULL CHECK (outcome IN ('ok', 'refused', 'denied', 'failed')),
  detail      jsonb       NOT NULL DEFAULT '{}'
);
-- The log is read newest first (by id), whole or by operator, action or target; and purged by age.
CREATE INDEX audit_log_operator_idx ON audit_log (operator_id, id);
CREATE INDEX audit_log_action_idx ON audit_log (action, id);
CREATE INDEX audit_log_target_idx ON audit_log (target_kind, target_id, id);
CREATE INDEX audit_log_at_idx ON audit_log (at);

ALTER TABLE settings
  ADD COLUMN console_session_hours integer NOT NULL DEFAULT 8 CHECK (console_session_hours BETWEEN 1 AND 720),
  ADD COLUMN audit_retention_days integer NOT NULL DEFAULT 365 CHECK (audit_retention_days BETWEEN 1 AND 3650);

-- A token's first characters (shown to tell tokens apart; NULL for tokens issued before) and its
-- last use (written at most once a minute per token and process).
ALTER TABLE api_tokens
  ADD COLUMN prefix text,
  ADD COLUMN last_used_at timestamptz;

-- Since when a task has been waiting: set by its first failed fetch (the due time that fetch
-- missed), cleared by a successful one. A backoff moves next_refresh_at forward, not this.
ALTER TABLE task_schedule ADD COLUMN due_since timestamptz;
-- Few rows: only the tasks whose last fetch failed.
CREATE INDEX task_schedule_failing_idx ON task_schedule (carrier_code, due_since) WHERE due_since IS NOT NULL;
