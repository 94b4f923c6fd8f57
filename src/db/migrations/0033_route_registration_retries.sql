-- Between sweeps, a registration round finds its work by key: the numbers of the tasks created
-- since the last round (route_tasks' primary key), and the registrations whose last call failed
-- or whose process died, due again when their lease lapses (this index).
CREATE INDEX route_registrations_retry_idx ON route_registrations (lease_until) WHERE state = 'registering';
