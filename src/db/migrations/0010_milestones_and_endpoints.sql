-- Milestones on tasks and events, account webhook endpoints, and typed deliveries.

-- A task's milestone (domain/milestones.ts): always one of its standard status's.
ALTER TABLE tracking_tasks ADD COLUMN milestone text NOT NULL DEFAULT 'pending'
  CHECK (milestone IN ('pending', 'info_received', 'in_transit', 'out_for_delivery', 'available_for_pickup', 'failed_attempt', 'exception', 'delivered', 'returned', 'cancelled', 'expired'));
-- An event's milestone from its own code; "" when the carrier's table does not know the code.
ALTER TABLE tracking_events ADD COLUMN milestone text NOT NULL DEFAULT '';

-- Existing events get theirs from the carriers' tables as they stood when milestones came
-- (docs/carriers.md has the tables the code now applies): the codes whose milestone is not their
-- standard status's plain one, then every other known code by its status.
UPDATE tracking_events e
   SET milestone = CASE
         WHEN t.carrier_code = 'FEDEX' AND e.event_code IN ('OC', 'IN') THEN 'info_received'
         WHEN t.carrier_code = 'FEDEX' AND e.event_code = 'OD' THEN 'out_for_delivery'
         WHEN t.carrier_code = 'FEDEX' AND e.event_code IN ('HL', 'HP') THEN 'available_for_pickup'
         WHEN t.carrier_code = 'FEDEX' AND e.event_code = 'DE'
              AND e.exception_description ~* '(customer|recipient|consignee)[^.]*not (available|in|home)|business (was )?closed|no one (was )?(home|available)|not at home|unable to (locate|access)|incorrect address|address (not|was not|unavailable)'
           THEN 'failed_attempt'
         WHEN t.carrier_code = 'UPARCEL' AND e.event_code = 'POSTED' THEN 'info_received'
         WHEN t.carrier_code = 'UPARCEL' AND e.event_code = 'OUT_FOR_DELIVERY' THEN 'out_for_delivery'
         WHEN t.carrier_code = 'UPARCEL' AND e.event_code = 'FAILED_DELIVERY' THEN 'failed_attempt'
         WHEN e.status IN ('pending', 'in_transit', 'exception', 'delivered', 'returned', 'cancelled', 'expired') THEN e.status
         ELSE ''
       END
  FROM tracking_tasks t
 WHERE t.id = e.task_id;

-- A task takes its newest event's milestone when that milestone is one of its status's; otherwise
-- its status's plain one.
UPDATE tracking_tasks t
   SET milestone = COALESCE((
         SELECT e.milestone FROM tracking_events e
          WHERE e.task_id = t.id AND e.milestone <> ''
            AND CASE e.milestone WHEN 'info_received' THEN 'pending' WHEN 'out_for_delivery' THEN 'in_transit'
                                 WHEN 'available_for_pickup' THEN 'in_transit' WHEN 'failed_attempt' THEN 'exception'
                                 ELSE e.milestone END = t.standard_status
          ORDER BY e.event_time DESC, e.id DESC LIMIT 1), t.standard_status)
 WHERE t.standard_status <> 'pending' OR EXISTS (SELECT 1 FROM tracking_events e WHERE e.task_id = t.id);

-- Account webhook endpoints: typed events for all of a user's tasks, each endpoint with its own
-- signing secret (the previous one keeps signing for 24 h after a rotation).
CREATE TABLE webhook_endpoints (
  id                          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id                     bigint      NOT NULL REFERENCES api_users (id),
  url                         text        NOT NULL,
  description                 text        NOT NULL DEFAULT '',
  event_types                 text[]      NOT NULL,
  -- Empty: every carrier, every milestone.
  carrier_codes               text[]      NOT NULL DEFAULT '{}',
  milestones                  text[]      NOT NULL DEFAULT '{}',
  enabled                     boolean     NOT NULL DEFAULT true,
  secret                      text        NOT NULL,
  previous_secret             text,
  previous_secret_expires_at  timestamptz,
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now()
);
-- A user's endpoints, read by every refresh transaction that has a change of theirs to tell.
CREATE INDEX webhook_endpoints_user_idx ON webhook_endpoints (user_id, id);

-- A delivery is a task's (to its callbackUrl: endpoint_id NULL) or an endpoint's; each belongs to
-- a user, whose account-wide log lists them newest first.
ALTER TABLE webhook_deliveries ADD COLUMN endpoint_id bigint, ADD COLUMN user_id bigint;
UPDATE webhook_deliveries d SET user_id = t.user_id FROM tracking_tasks t WHERE t.id = d.task_id;
ALTER TABLE webhook_deliveries ALTER COLUMN user_id SET NOT NULL;
-- The log: a user's deliveries newest first (keyset on created_at, id); the failed ones of a time
-- window, for the bulk replay and the log's status=failed.
CREATE INDEX webhook_deliveries_user_idx ON webhook_deliveries (user_id, created_at, id);
CREATE INDEX webhook_deliveries_user_failed_idx ON webhook_deliveries (user_id, created_at, id) WHERE status = 'failed';
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id) WHERE endpoint_id IS NOT NULL;
-- latestWebhook and a task's history are its own deliveries; an endpoint's go with the task
-- (deleted with it) through their own index.
DROP INDEX webhook_deliveries_task_idx;
CREATE INDEX webhook_deliveries_task_idx ON webhook_deliveries (task_id, id) WHERE endpoint_id IS NULL;
CREATE INDEX webhook_deliveries_task_endpoint_idx ON webhook_deliveries (task_id) WHERE endpoint_id IS NOT NULL;

-- A task's delete takes every delivery about it along, the task's and the endpoints' (a
-- tracking.deleted delivery is made after the delete, by the same transaction, and stays): each
-- kind through its own partial index. Deleting an endpoint takes its deliveries along.
CREATE OR REPLACE FUNCTION delete_task_children() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM tracking_events e USING gone g WHERE e.task_id = g.id;
  DELETE FROM webhook_deliveries d USING gone g WHERE d.task_id = g.id AND d.endpoint_id IS NULL;
  DELETE FROM webhook_deliveries d USING gone g WHERE d.task_id = g.id AND d.endpoint_id IS NOT NULL;
  RETURN NULL;
END
$$;

CREATE FUNCTION delete_endpoint_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM webhook_deliveries d USING gone g WHERE d.endpoint_id = g.id;
  RETURN NULL;
END
$$;
CREATE TRIGGER webhook_endpoints_deliveries_go_with_them AFTER DELETE ON webhook_endpoints
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION delete_endpoint_deliveries();
