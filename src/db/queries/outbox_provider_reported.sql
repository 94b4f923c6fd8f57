-- outbox_provider_reported: run by src/db/outbox.repository.ts

WITH
  rank AS (
    SELECT
      status,
      rank
    FROM
      unnest($3::text[], $4::int[]) AS r (status, rank)
  ),
  message AS (
    SELECT
      d.id,
      d.provider_status
    FROM
      deliveries d
    WHERE
      d.webhook_id = $1
      AND d.channel = 'sms'
  ),
  reported AS (
    UPDATE deliveries d
    SET
      provider_status = $2,
      status = CASE
        WHEN $5::text IS NOT NULL
        AND d.status = 'success' THEN 'failed'
        ELSE d.status
      END,
      error_message = CASE
        WHEN $5::text IS NOT NULL
        AND d.status = 'success' THEN $5
        ELSE d.error_message
      END,
      updated_at = now()
    FROM
      message m
    WHERE
      d.id = m.id
      AND COALESCE(
        (
          SELECT
            rank
          FROM
            rank
          WHERE
            rank.status = m.provider_status
        ),
        0
      ) < (
        SELECT
          rank
        FROM
          rank
        WHERE
          rank.status = $2
      )
    RETURNING
      d.id
  )
SELECT
  id
FROM
  message;
