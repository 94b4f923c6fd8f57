-- task_recipient_and_messages: run by src/db/recipient.repository.ts

SELECT
  (
    SELECT
      json_build_object('email', r.email, 'phone', r.phone, 'name', r.name, 'language', r.language)
    FROM
      task_recipients r
    WHERE
      r.task_id = $2
      AND r.user_id = $1
  ) AS recipient,
  COALESCE(
    (
      SELECT
        json_agg(
          json_build_object(
            'channel',
            d.channel,
            'trigger',
            d.trigger,
            'status',
            d.status,
            'attempts',
            d.attempt_count,
            'sentAt',
            CASE
              WHEN d.status = 'success' THEN to_char(d.last_attempt_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
            END,
            'error',
            CASE
              WHEN d.status = 'success' THEN ''
              ELSE COALESCE(d.error_message, '')
            END
          )
          ORDER BY
            d.id
        )
      FROM
        deliveries d
      WHERE
        d.task_id = $2
        AND d.user_id = $1
        AND d.trigger IS NOT NULL
    ),
    '[]'
  ) AS notifications;
