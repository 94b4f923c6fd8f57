-- Carrier change and auto-correct (docs/api.md, "Changing a task's carrier"). A task's changes are
-- kept as rows beside it, not on its row: few tasks ever change, and the row every subscribe
-- writes stays as it was. At most five changes a task (counted here, under the task's lock).
CREATE TABLE carrier_changes (
  task_id bigint NOT NULL,
  changed_at timestamptz NOT NULL DEFAULT now(),
  previous_carrier_code text NOT NULL,
  carrier_code text NOT NULL,
  reason text NOT NULL CHECK (reason IN ('user', 'auto_correct')),
  PRIMARY KEY (task_id, changed_at, carrier_code)
);

-- A task's one auto-correct: claimed by a worker under a lease, then finished with what it tried
-- ([{carrierCode, outcome}] in order, as the full task shows it) and how it ended.
CREATE TABLE carrier_corrections (
  task_id bigint PRIMARY KEY,
  started_at timestamptz NOT NULL DEFAULT now(),
  leased_until timestamptz NOT NULL,
  finished_at timestamptz,
  outcome text CHECK (outcome IN ('moved', 'not_found', 'conflict', 'superseded')),
  tried json NOT NULL DEFAULT '[]',
  CHECK ((finished_at IS NULL) = (outcome IS NULL))
);

-- Per API user; NULL takes the back-office default (settings).
ALTER TABLE api_users
  ADD COLUMN carrier_auto_correct boolean,
  ADD COLUMN carrier_auto_correct_hours double precision CHECK (carrier_auto_correct_hours > 0 AND carrier_auto_correct_hours <= 8760);

ALTER TABLE settings
  ADD COLUMN carrier_auto_correct text NOT NULL DEFAULT 'off' CHECK (carrier_auto_correct IN ('off', 'on')),
  ADD COLUMN carrier_auto_correct_hours integer NOT NULL DEFAULT 48 CHECK (carrier_auto_correct_hours BETWEEN 1 AND 8760);

-- A task's changes and its correction go with it.
CREATE OR REPLACE FUNCTION delete_task_children() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM tracking_events e USING gone g WHERE e.task_id = g.id;
  DELETE FROM deliveries d USING gone g WHERE d.task_id = g.id;
  DELETE FROM task_schedule s USING gone g WHERE s.task_id = g.id;
  DELETE FROM carrier_changes c USING gone g WHERE c.task_id = g.id;
  DELETE FROM carrier_corrections c USING gone g WHERE c.task_id = g.id;
  RETURN NULL;
END
$$;
