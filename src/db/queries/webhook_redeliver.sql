-- webhook_redeliver: run by src/db/webhook-history.repository.ts

WITH
  target AS (
    SELECT
      d.id,
      d.status
    FROM
      deliveries d
      JOIN tracking_tasks t ON t.id = d.task_id
    WHERE
      t.user_id = $1
      AND t.id = $2
      AND d.webhook_id = $3
    FOR UPDATE OF
      d
  ),
  restarted AS (
    UPDATE deliveries d
    SET
      status = 'pending',
      next_attempt_at = now(),
      cycle_start_attempt = d.attempt_count,
      updated_at = now()
    FROM
      target
    WHERE
      d.id = target.id
      AND target.status IN ('success', 'failed', 'retry_wait')
    RETURNING
      d.status
  )
SELECT
  COALESCE(
    (
      SELECT
        status
      FROM
        restarted
    ),
    (
      SELECT
        status
      FROM
        target
    )
  ) AS status
WHERE
  EXISTS (
    SELECT
      1
    FROM
      target
  );
