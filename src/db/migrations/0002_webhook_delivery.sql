-- Webhook delivery workers: when an attempt started (for attempts cut short by a crash), where the
-- current retry cycle began (a manual redeliver starts a new one), and a wake-up for the workers.

ALTER TABLE webhook_deliveries
  ADD COLUMN attempt_started_at timestamptz,
  -- attempt_count at the start of the current retry cycle: the schedule position is
  -- attempt_count - cycle_start_attempt.
  ADD COLUMN cycle_start_attempt integer NOT NULL DEFAULT 0;

CREATE FUNCTION notify_webhook_deliveries_due() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('webhook_deliveries_due', '');
  RETURN NULL;
END
$$;

-- Row-level, but identical notifications within a transaction are folded into one by PostgreSQL.
CREATE TRIGGER webhook_deliveries_due_notify
  AFTER INSERT OR UPDATE OF status ON webhook_deliveries
  FOR EACH ROW WHEN (NEW.status = 'pending')
  EXECUTE FUNCTION notify_webhook_deliveries_due();
