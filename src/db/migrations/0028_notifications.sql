-- Telling the shop's customer (docs/notifications.md).

-- A task's recipient, the shop's customer: personal data, in a table of its own so that a task
-- without one (nearly every task) writes and reads nothing more, and so that it is deleted on its
-- own when its retention ends. email_hash is the address's keyed hash (recipient_addresses).
CREATE TABLE task_recipients (
  task_id     bigint PRIMARY KEY,
  user_id     bigint      NOT NULL,
  email       text,
  email_hash  text,
  phone       text,
  name        text,
  language    text CHECK (language IN ('en', 'de', 'fr', 'es')),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  CHECK (email IS NOT NULL OR phone IS NOT NULL),
  CHECK ((email IS NULL) = (email_hash IS NULL))
);

-- Every address a shop has written to, by its keyed hash (HMAC-SHA-256 under a service key, never
-- the address): its unsubscribe token (/u/{token}), the language of its last recipient (the
-- unsubscribe page's), and its suppression. It outlives the recipients' data.
CREATE TABLE recipient_addresses (
  user_id            bigint      NOT NULL REFERENCES api_users (id) ON DELETE CASCADE,
  channel            text        NOT NULL CHECK (channel IN ('email', 'sms')),
  address_hash       text        NOT NULL,
  token              text        NOT NULL UNIQUE,
  language           text        NOT NULL CHECK (language IN ('en', 'de', 'fr', 'es')),
  created_at         timestamptz NOT NULL DEFAULT now(),
  suppressed_at      timestamptz,
  suppressed_reason  text,
  PRIMARY KEY (user_id, channel, address_hash)
);

-- Per API user, {email: {enabled, triggers, fromName, replyTo}, sms: {enabled, triggers}}; NULL:
-- the defaults (every channel off).
ALTER TABLE api_users ADD COLUMN notification_settings json;

-- The customer's email is a channel of the outbox; its target is the task's recipient, resolved
-- when it is sent. A message is one per task, milestone and channel, whatever the processes,
-- restarts and fetches: the key below, which the planning's insert meets with DO NOTHING.
ALTER TABLE deliveries
  DROP CONSTRAINT deliveries_channel_check,
  ADD CONSTRAINT deliveries_channel_check CHECK (channel IN ('webhook', 'email')),
  DROP CONSTRAINT deliveries_target_check,
  ADD CONSTRAINT deliveries_target_check CHECK (target IN ('callback', 'endpoint', 'recipient')),
  ADD COLUMN trigger text;
CREATE UNIQUE INDEX deliveries_message_once ON deliveries (task_id, trigger, channel) WHERE trigger IS NOT NULL;

-- How long a task's recipient is kept after the task ends (docs/notifications.md, "Personal data").
ALTER TABLE settings
  ADD COLUMN recipient_retention_days integer NOT NULL DEFAULT 30 CHECK (recipient_retention_days BETWEEN 1 AND 3650);

-- A task's recipient goes with it.
CREATE OR REPLACE FUNCTION delete_task_children() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM tracking_events e USING gone g WHERE e.task_id = g.id;
  DELETE FROM deliveries d USING gone g WHERE d.task_id = g.id;
  DELETE FROM task_schedule s USING gone g WHERE s.task_id = g.id;
  DELETE FROM carrier_corrections c USING gone g WHERE c.task_id = g.id;
  DELETE FROM task_recipients r USING gone g WHERE r.task_id = g.id;
  RETURN NULL;
END
$$;
