-- One outbox for every channel (docs/architecture.md, "The outbox"). A delivery has a channel
-- (webhook; the customer's email and SMS come next) and a target, which says where it goes when
-- it is sent: `callback`, its task's callbackUrl at that moment; `endpoint`, its account
-- endpoint's URL. "The task's callback" was the absence of an endpoint, spelled as
-- `endpoint_id IS NULL` in every statement that cared; it is now said on the row.
ALTER TABLE webhook_deliveries RENAME TO deliveries;
ALTER TABLE webhook_attempts RENAME TO delivery_attempts;
ALTER SEQUENCE webhook_deliveries_id_seq RENAME TO deliveries_id_seq;
ALTER SEQUENCE webhook_attempts_id_seq RENAME TO delivery_attempts_id_seq;
ALTER TABLE deliveries RENAME CONSTRAINT webhook_deliveries_pkey TO deliveries_pkey;
ALTER TABLE deliveries RENAME CONSTRAINT webhook_deliveries_webhook_id_key TO deliveries_webhook_id_key;
ALTER TABLE deliveries RENAME CONSTRAINT webhook_deliveries_status_check TO deliveries_status_check;
ALTER TABLE delivery_attempts RENAME CONSTRAINT webhook_attempts_pkey TO delivery_attempts_pkey;
ALTER TABLE delivery_attempts RENAME CONSTRAINT webhook_attempts_delivery_attempt_key TO delivery_attempts_delivery_attempt_key;
ALTER INDEX webhook_deliveries_sending_idx RENAME TO deliveries_sending_idx;
ALTER INDEX webhook_deliveries_user_idx RENAME TO deliveries_user_idx;
ALTER INDEX webhook_deliveries_user_failed_idx RENAME TO deliveries_user_failed_idx;
ALTER INDEX webhook_deliveries_endpoint_idx RENAME TO deliveries_endpoint_idx;
ALTER TRIGGER webhook_deliveries_never_truncated ON deliveries RENAME TO deliveries_never_truncated;
ALTER TRIGGER webhook_deliveries_attempts_go_with_them ON deliveries RENAME TO deliveries_attempts_go_with_them;

-- Both columns are written by every insert of the service; the defaults are what every row
-- stored before them was, and what an operator's hand-written row most likely is.
ALTER TABLE deliveries
  ADD COLUMN channel text NOT NULL DEFAULT 'webhook' CONSTRAINT deliveries_channel_check CHECK (channel IN ('webhook')),
  ADD COLUMN target text NOT NULL DEFAULT 'callback' CONSTRAINT deliveries_target_check CHECK (target IN ('callback', 'endpoint'));
UPDATE deliveries SET target = 'endpoint' WHERE endpoint_id IS NOT NULL;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_endpoint_check CHECK ((target = 'endpoint') = (endpoint_id IS NOT NULL));

-- A channel's claim reads its own due deliveries, in due order.
DROP INDEX webhook_deliveries_due_idx;
CREATE INDEX deliveries_due_idx ON deliveries (channel, next_attempt_at) WHERE status IN ('pending', 'retry_wait');
-- latestWebhook and a task's history are its callback's deliveries; the others about a task go
-- with it (deleted with it) through their own index.
DROP INDEX webhook_deliveries_task_idx;
CREATE INDEX deliveries_task_idx ON deliveries (task_id, id) WHERE target = 'callback';
DROP INDEX webhook_deliveries_task_endpoint_idx;
CREATE INDEX deliveries_task_other_idx ON deliveries (task_id) WHERE target <> 'callback';

-- The triggers' functions name the tables: written again with the new names.
CREATE OR REPLACE FUNCTION delete_task_children() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM tracking_events e USING gone g WHERE e.task_id = g.id;
  DELETE FROM deliveries d USING gone g WHERE d.task_id = g.id;
  DELETE FROM task_schedule s USING gone g WHERE s.task_id = g.id;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION delete_delivery_attempts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM delivery_attempts a USING gone g WHERE a.delivery_id = g.id;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION delete_endpoint_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM deliveries d USING gone g WHERE d.endpoint_id = g.id;
  RETURN NULL;
END
$$;
