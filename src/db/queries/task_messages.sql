-- task_messages: run by src/db/recipient.repository.ts

SELECT
  d.channel,
  d.trigger,
  d.status,
  d.attempt_count AS attempts,
  CASE
    WHEN d.status = 'success' THEN d.last_attempt_at
  END AS sent_at,
  d.error_message AS error
FROM
  deliveries d
WHERE
  d.task_id = $2
  AND d.user_id = $1
  AND d.trigger IS NOT NULL
ORDER BY
  d.id;
