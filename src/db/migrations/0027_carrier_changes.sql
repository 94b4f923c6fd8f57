-- Carrier change and auto-correct (docs/api.md, "Changing a task's carrier", "Auto-correct").
-- What the full task shows of them is kept on the task's row as the JSON text the documents write
-- (as the addresses and the prediction are): NULL for almost every task, so a subscribe writes
-- nothing more, and a document reads two columns rather than probing two tables (a list page of
-- twenty documents doing so ran at 0.8x of its rate).
--   carrier_changes: [{previousCarrierCode, carrierCode, reason, changedAt}], oldest first; at
--     most 5 (counted under the task's lock); NULL: never changed.
--   carrier_correction: {startedAt, finishedAt, outcome, tried}; NULL: never tried.
ALTER TABLE tracking_tasks
  ADD COLUMN carrier_changes json,
  ADD COLUMN carrier_correction json;

-- A task's one auto-correct as work: claimed by a worker under a lease (another worker skips it; a
-- crashed worker's claim is taken again when the lease lapses), finished once.
CREATE TABLE carrier_corrections (
  task_id bigint PRIMARY KEY,
  leased_until timestamptz NOT NULL,
  finished_at timestamptz
);

-- Per API user; NULL takes the back-office default (settings).
ALTER TABLE api_users
  ADD COLUMN carrier_auto_correct boolean,
  ADD COLUMN carrier_auto_correct_hours double precision CHECK (carrier_auto_correct_hours > 0 AND carrier_auto_correct_hours <= 8760);

ALTER TABLE settings
  ADD COLUMN carrier_auto_correct text NOT NULL DEFAULT 'off' CHECK (carrier_auto_correct IN ('off', 'on')),
  ADD COLUMN carrier_auto_correct_hours integer NOT NULL DEFAULT 48 CHECK (carrier_auto_correct_hours BETWEEN 1 AND 8760);

-- A task's correction goes with it.
CREATE OR REPLACE FUNCTION delete_task_children() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM tracking_events e USING gone g WHERE e.task_id = g.id;
  DELETE FROM deliveries d USING gone g WHERE d.task_id = g.id;
  DELETE FROM task_schedule s USING gone g WHERE s.task_id = g.id;
  DELETE FROM carrier_corrections c USING gone g WHERE c.task_id = g.id;
  RETURN NULL;
END
$$;
