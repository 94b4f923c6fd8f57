-- Carriers served through an aggregator (17TRACK): docs/carriers.md, "17TRACK".

-- The tasks of routed carriers, found by number: a push names a number, never a task. Filled by
-- the registration round as it finds the routed carriers' active tasks (the task row itself gains
-- no index: the subscribe path pays nothing for a carrier it does not use).
CREATE TABLE route_tasks (
  task_id         bigint PRIMARY KEY,
  carrier_code    text NOT NULL,
  tracking_number text NOT NULL
);
CREATE INDEX route_tasks_number_idx ON route_tasks (carrier_code, tracking_number);

-- A number's registration at the aggregator: durable, because each one costs a unit of the key's
-- quota. One row per (carrier, number), whatever the number of tasks that share it; registering
-- and stopping hold a lease while the aggregator is called, so that two processes never register
-- the same number and a crashed one's work is taken again when its lease lapses.
CREATE TABLE route_registrations (
  carrier_code    text NOT NULL,
  tracking_number text NOT NULL,
  state           text NOT NULL CHECK (state IN ('registering', 'registered', 'stopping', 'stopped', 'refused')),
  -- While registering or stopping: the aggregator is being called until then.
  lease_until     timestamptz,
  -- Registered once at least (a stopped number is restarted, not registered again).
  registered_at   timestamptz,
  stopped_at      timestamptz,
  -- refused: the aggregator's code and message (an invalid number); never asked again.
  refusal         text,
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (carrier_code, tracking_number)
);
-- The stop round reads the registered numbers.
CREATE INDEX route_registrations_registered_idx ON route_registrations (carrier_code, tracking_number) WHERE state = 'registered';
