-- No NOTIFY per new or restarted delivery. The row trigger fired once per outbox row inside the
-- refresh's transactions (30-50 rows per carrier answer), also on the embedded database where
-- nobody listens. The process that makes deliveries due now wakes its own webhook loop and sends
-- at most one NOTIFY per 100 ms after its commit (src/db/notifier.ts); workers poll as well.
DROP TRIGGER webhook_deliveries_due_notify ON webhook_deliveries;
DROP FUNCTION notify_webhook_deliveries_due();
