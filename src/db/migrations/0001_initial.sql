-- The foundation schema: API users and their tokens, back-office settings, subscription tasks,
-- their tracking events, and the webhook outbox with its attempts. Refresh scheduling and
-- delivery leases live on the rows they schedule, so a claim is one indexed UPDATE.

CREATE TABLE api_users (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name            text        NOT NULL,
  -- Standard Webhooks signing secret ("whsec_" + base64 of 32 random bytes). During a rotation
  -- the previous secret keeps signing, alongside the new one, until it expires.
  webhook_secret                      text        NOT NULL,
  previous_webhook_secret             text,
  previous_webhook_secret_expires_at  timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_tokens (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id     bigint      NOT NULL REFERENCES api_users (id),
  -- SHA-256 of the token: tokens carry 256 random bits, so a fast hash is enough and the
  -- plaintext is never stored.
  token_hash  bytea       NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);
-- Every authenticated request (on a cache miss) looks a token up by its hash.
CREATE UNIQUE INDEX api_tokens_token_hash_key ON api_tokens (token_hash);
CREATE INDEX api_tokens_user_id_idx ON api_tokens (user_id);

-- Back-office settings: one row, one typed column per setting, read by every process.
CREATE TABLE settings (
  id               boolean PRIMARY KEY DEFAULT true CHECK (id),
  batch_max_items  integer NOT NULL DEFAULT 100 CHECK (batch_max_items BETWEEN 1 AND 1000),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
INSERT INTO settings (id) VALUES (true);

CREATE TABLE tracking_tasks (
  id                     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id                bigint      NOT NULL REFERENCES api_users (id),
  carrier_code           text        NOT NULL,
  tracking_number        text        NOT NULL,
  external_reference_no  text        NOT NULL DEFAULT '',
  callback_url           text        NOT NULL,
  standard_status        text        NOT NULL DEFAULT 'pending'
    CHECK (standard_status IN ('pending', 'in_transit', 'exception', 'delivered', 'returned', 'cancelled', 'expired')),
  carrier_status         text        NOT NULL DEFAULT '',
  estimated_delivery_at  timestamptz,
  -- Address objects with the five string fields of the interface (country, state, city,
  -- postalCode, address); "" for a missing part.
  origin_address         jsonb       NOT NULL DEFAULT '{"country": "", "state": "", "city": "", "postalCode": "", "address": ""}',
  destination_address    jsonb       NOT NULL DEFAULT '{"country": "", "state": "", "city": "", "postalCode": "", "address": ""}',
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now(),
  -- Refresh scheduling. next_refresh_at is NULL once the task is terminal (no more polling).
  -- A worker claims a due task by moving refresh_lease_until into the future; a crashed
  -- worker's claim simply expires.
  next_refresh_at        timestamptz DEFAULT now(),
  refresh_lease_until    timestamptz,
  refresh_lease_owner    text,
  refresh_failures       integer     NOT NULL DEFAULT 0,
  last_fetched_at        timestamptz,
  -- When this service last saw a new event of the task (not the carrier's event time): expiry
  -- counts "no new event for N days" from here, or from created_at before the first one.
  last_new_event_at      timestamptz,
  CONSTRAINT tracking_tasks_user_carrier_number_key UNIQUE (user_id, carrier_code, tracking_number)
);
-- Query by tracking number: the newest task of this user with this number, at any carrier.
CREATE INDEX tracking_tasks_user_number_idx ON tracking_tasks (user_id, tracking_number, id DESC);
-- The refresh scheduler's claim: due, active tasks in due order.
CREATE INDEX tracking_tasks_refresh_due_idx ON tracking_tasks (next_refresh_at) WHERE next_refresh_at IS NOT NULL;

CREATE TABLE tracking_events (
  id                     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  task_id                bigint      NOT NULL REFERENCES tracking_tasks (id) ON DELETE CASCADE,
  -- A stable identity of the event at its carrier (time, code, place), so that refetching the
  -- same history merges instead of duplicating.
  event_key              text        NOT NULL,
  event_time             timestamptz NOT NULL,
  event_code             text        NOT NULL DEFAULT '',
  status                 text        NOT NULL DEFAULT '',
  status_info            text        NOT NULL DEFAULT '',
  description            text        NOT NULL DEFAULT '',
  exception_description  text        NOT NULL DEFAULT '',
  country                text        NOT NULL DEFAULT '',
  state                  text        NOT NULL DEFAULT '',
  city                   text        NOT NULL DEFAULT '',
  postal_code            text        NOT NULL DEFAULT '',
  address                text        NOT NULL DEFAULT '',
  created_at             timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT tracking_events_task_key UNIQUE (task_id, event_key)
);
-- A task's events, served in eventTime order.
CREATE INDEX tracking_events_task_time_idx ON tracking_events (task_id, event_time, id);

-- The webhook outbox: one row per notification, written in the transaction of the status change
-- it reports.
CREATE TABLE webhook_deliveries (
  id                     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  task_id                bigint      NOT NULL REFERENCES tracking_tasks (id) ON DELETE CASCADE,
  -- The Standard Webhooks message id, stable across retries.
  webhook_id             text        NOT NULL,
  event_type             text        NOT NULL DEFAULT 'tracking.status_changed',
  -- json, not jsonb: the body is sent (and signed) exactly as it was written.
  payload                json        NOT NULL,
  status                 text        NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'sending', 'success', 'retry_wait', 'failed')),
  attempt_count          integer     NOT NULL DEFAULT 0,
  -- When the next attempt is due (pending and retry_wait); shown as nextRetryAt in retry_wait.
  next_attempt_at        timestamptz,
  last_attempt_at        timestamptz,
  response_status_code   integer     NOT NULL DEFAULT 0,
  error_message          text        NOT NULL DEFAULT '',
  lease_until            timestamptz,
  lease_owner            text,
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT webhook_deliveries_webhook_id_key UNIQUE (webhook_id)
);
-- latestWebhook and the delivery history of a task: newest first.
CREATE INDEX webhook_deliveries_task_idx ON webhook_deliveries (task_id, id DESC);
-- The delivery workers' claim: due deliveries in due order.
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status IN ('pending', 'retry_wait');
-- Expired leases of crashed workers go back to the queue.
CREATE INDEX webhook_deliveries_sending_idx ON webhook_deliveries (lease_until) WHERE status = 'sending';

CREATE TABLE webhook_attempts (
  id                     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id            bigint      NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt_number         integer     NOT NULL,
  started_at             timestamptz NOT NULL,
  duration_ms            integer     NOT NULL,
  response_status_code   integer     NOT NULL DEFAULT 0,
  error_message          text        NOT NULL DEFAULT '',
  -- The first 2 kB of the receiver's answer, for debugging a failing endpoint.
  response_body_excerpt  text        NOT NULL DEFAULT '',
  CONSTRAINT webhook_attempts_delivery_attempt_key UNIQUE (delivery_id, attempt_number)
);
