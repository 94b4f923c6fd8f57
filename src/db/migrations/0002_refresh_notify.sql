-- Wake the refresh workers when tasks are created, so a new task is fetched at once instead of at
-- the next poll. One notification per statement (a batch of 100 is one), none per row.
CREATE FUNCTION notify_tracking_tasks_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('tracking_tasks_created', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER tracking_tasks_created_notify
  AFTER INSERT ON tracking_tasks
  FOR EACH STATEMENT EXECUTE FUNCTION notify_tracking_tasks_created();
