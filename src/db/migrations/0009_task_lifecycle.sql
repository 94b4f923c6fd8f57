-- The task lifecycle: stop, refresh now, delete, and retention.

ALTER TABLE tracking_tasks
  -- When the user stopped the task (it is then not fetched until a refresh now).
  ADD COLUMN stopped_at            timestamptz,
  -- Since when the task has not been fetched any more (terminal or stopped): what retention counts from.
  ADD COLUMN inactive_since        timestamptz,
  -- The last "refresh now" the user asked for: at most one a minute.
  ADD COLUMN refresh_requested_at  timestamptz;

UPDATE tracking_tasks SET inactive_since = updated_at WHERE next_refresh_at IS NULL;

-- The list: a user's tasks by creation and by last change, in both directions (keyset pages),
-- and by their own reference.
CREATE INDEX tracking_tasks_user_created_idx ON tracking_tasks (user_id, created_at, id);
CREATE INDEX tracking_tasks_user_updated_idx ON tracking_tasks (user_id, updated_at, id);
CREATE INDEX tracking_tasks_user_reference_idx ON tracking_tasks (user_id, external_reference_no) WHERE external_reference_no <> '';
-- Retention: the longest-inactive tasks first. Partial: active tasks, rewritten by every fetch,
-- never enter it.
CREATE INDEX tracking_tasks_inactive_idx ON tracking_tasks (inactive_since) WHERE inactive_since IS NOT NULL;

ALTER TABLE settings ADD COLUMN retention_days integer NOT NULL DEFAULT 0 CHECK (retention_days BETWEEN 0 AND 3650);

-- Tasks and deliveries may now be deleted (by their user, or by retention). What the triggers of
-- migration 0006 guarded (no event, delivery or attempt without its parent) is kept another way:
-- deleting a parent deletes its children in the same statement's transaction (below), and
-- children are only ever written while their parent is locked (events and deliveries in the
-- refresh's transaction that holds the task FOR UPDATE; attempts by the UPDATE of their delivery
-- row), so none can be written for a parent that a committed delete removed (docs/architecture.md).
DROP TRIGGER tracking_tasks_never_deleted ON tracking_tasks;
DROP TRIGGER tracking_tasks_never_truncated ON tracking_tasks;
DROP TRIGGER webhook_deliveries_never_deleted ON webhook_deliveries;
DROP TRIGGER webhook_deliveries_never_truncated ON webhook_deliveries;
DROP FUNCTION forbid_history_delete();

CREATE FUNCTION delete_task_children() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM tracking_events e USING gone g WHERE e.task_id = g.id;
  DELETE FROM webhook_deliveries d USING gone g WHERE d.task_id = g.id;
  RETURN NULL;
END
$$;
CREATE TRIGGER tracking_tasks_children_go_with_them AFTER DELETE ON tracking_tasks
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION delete_task_children();

CREATE FUNCTION delete_delivery_attempts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM webhook_attempts a USING gone g WHERE a.delivery_id = g.id;
  RETURN NULL;
END
$$;
CREATE TRIGGER webhook_deliveries_attempts_go_with_them AFTER DELETE ON webhook_deliveries
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION delete_delivery_attempts();

-- TRUNCATE would skip the triggers: refused, as before.
CREATE FUNCTION forbid_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is never truncated (its children would be left behind); delete its rows instead', TG_TABLE_NAME;
END
$$;
CREATE TRIGGER tracking_tasks_never_truncated BEFORE TRUNCATE ON tracking_tasks FOR EACH STATEMENT EXECUTE FUNCTION forbid_truncate();
CREATE TRIGGER webhook_deliveries_never_truncated BEFORE TRUNCATE ON webhook_deliveries FOR EACH STATEMENT EXECUTE FUNCTION forbid_truncate();

-- Keys the service signs with (the list's cursors), shared by every process; made by the first
-- process that needs one.
CREATE TABLE service_secrets (
  name        text PRIMARY KEY,
  value       bytea NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
