-- Each carrier's refresh is claimed on its own (a slow or failing carrier never delays another,
-- and a carrier whose circuit is open is not read at all): the due index leads with the carrier.
CREATE INDEX tracking_tasks_refresh_due_by_carrier_idx ON tracking_tasks (carrier_code, next_refresh_at) WHERE next_refresh_at IS NOT NULL;
DROP INDEX tracking_tasks_refresh_due_idx;
