-- The refresh's schedule in a narrow table of its own, one row per task: when it is due, its
-- consecutive failures and its last successful fetch. A fetch that finds nothing new updates this
-- row alone (heap and two small index entries) instead of the wide task row and its dozen
-- indexes, twice (claim, then apply). A claim writes no task row at all: it records the round's
-- task ids in refresh_claims under a per-carrier advisory lock, and the apply advances a row only
-- if it is still due when it was claimed (the due time is the lease's token). docs/architecture.md,
-- "The refresh's schedule".
CREATE TABLE task_schedule (
  task_id          bigint PRIMARY KEY,
  carrier_code     text NOT NULL,
  -- NULL: not fetched (terminal or stopped).
  next_refresh_at  timestamptz,
  refresh_failures integer NOT NULL DEFAULT 0,
  last_fetched_at  timestamptz
) WITH (fillfactor = 50);
INSERT INTO task_schedule (task_id, carrier_code, next_refresh_at, refresh_failures, last_fetched_at)
SELECT id, carrier_code, next_refresh_at, refresh_failures, last_fetched_at FROM tracking_tasks;
-- Each carrier's due tasks, oldest first (the claim, the next full request, the lag, the backlog).
CREATE INDEX task_schedule_due_idx ON task_schedule (carrier_code, next_refresh_at) WHERE next_refresh_at IS NOT NULL;

-- A round's claim: the tasks a worker is fetching, until its lease runs out. One row per round
-- (not per task), written and deleted once a round; a claim skips the tasks of live claims.
CREATE TABLE refresh_claims (
  lease_token  text PRIMARY KEY,
  carrier_code text NOT NULL,
  task_ids     bigint[] NOT NULL,
  lease_until  timestamptz NOT NULL
);

-- The carrier answer the task's state was last decided from (a fingerprint): an answer with the
-- same fingerprint changes nothing, and its fetch touches only the schedule.
ALTER TABLE tracking_tasks ADD COLUMN answer_fingerprint text;

-- Every task has its schedule row from its insert on, whoever inserts it; a task inserted inactive
-- is not scheduled.
CREATE FUNCTION schedule_new_tasks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO task_schedule (task_id, carrier_code, next_refresh_at)
  SELECT id, carrier_code, CASE WHEN inactive_since IS NULL THEN now() END FROM added;
  RETURN NULL;
END
$$;
CREATE TRIGGER tracking_tasks_scheduled AFTER INSERT ON tracking_tasks
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION schedule_new_tasks();

CREATE OR REPLACE FUNCTION delete_task_children() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM tracking_events e USING gone g WHERE e.task_id = g.id;
  DELETE FROM webhook_deliveries d USING gone g WHERE d.task_id = g.id;
  DELETE FROM task_schedule s USING gone g WHERE s.task_id = g.id;
  RETURN NULL;
END
$$;

-- Active and inactive are told by inactive_since (set when a task stops being fetched, cleared by
-- a refresh now), which the refresh no longer rewrites on every fetch.
DROP INDEX tracking_tasks_refresh_due_by_carrier_idx;
DROP INDEX tracking_tasks_user_active_created_idx;
DROP INDEX tracking_tasks_user_active_updated_idx;
DROP INDEX tracking_tasks_user_inactive_created_idx;
DROP INDEX tracking_tasks_user_inactive_updated_idx;
ALTER TABLE tracking_tasks
  DROP COLUMN next_refresh_at,
  DROP COLUMN refresh_lease_until,
  DROP COLUMN refresh_lease_owner,
  DROP COLUMN refresh_failures,
  DROP COLUMN last_fetched_at;
CREATE INDEX tracking_tasks_user_active_created_idx ON tracking_tasks (user_id, created_at, id) WHERE inactive_since IS NULL;
CREATE INDEX tracking_tasks_user_active_updated_idx ON tracking_tasks (user_id, updated_at, id) WHERE inactive_since IS NULL;
CREATE INDEX tracking_tasks_user_inactive_created_idx ON tracking_tasks (user_id, created_at, id) WHERE inactive_since IS NOT NULL;
CREATE INDEX tracking_tasks_user_inactive_updated_idx ON tracking_tasks (user_id, updated_at, id) WHERE inactive_since IS NOT NULL;
