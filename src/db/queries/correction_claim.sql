-- correction_claim: run by src/db/carrier-corrections.ts

WITH
  due AS (
    SELECT
      t.id
    FROM
      settings st
      JOIN api_users u ON COALESCE(u.carrier_auto_correct, st.carrier_auto_correct = 'on')
      CROSS JOIN LATERAL (
        SELECT
          now() - make_interval(secs => 3600 * COALESCE(u.carrier_auto_correct_hours, st.carrier_auto_correct_hours)) AS cutoff
      ) c
      -- Per user (LATERAL): each user's pending tasks through (user_id, milestone, created_at).
      CROSS JOIN LATERAL (
        SELECT
          t.id,
          t.created_at
        FROM
          tracking_tasks t
        WHERE
          t.user_id = u.id
          AND t.milestone = 'pending'
          AND t.created_at <= c.cutoff
          AND t.inactive_since IS NULL
          AND t.answer_fingerprint = $1
          AND json_array_length(t.events_view) = 0
          -- Its hours count from its last change too, and its changes are not spent.
          AND (
            t.carrier_changes IS NULL
            OR (
              json_array_length(t.carrier_changes) < 5
              AND (t.carrier_changes -> -1 ->> 'changedAt')::timestamptz <= c.cutoff
            )
          )
          AND NOT EXISTS (
            SELECT
              1
            FROM
              carrier_corrections cc
            WHERE
              cc.task_id = t.id
              AND (
                cc.finished_at IS NOT NULL
                OR cc.leased_until > now()
              )
          )
        ORDER BY
          t.created_at
        LIMIT
          $2
      ) t
    WHERE
      st.id
    ORDER BY
      t.created_at
    LIMIT
      $2
  ),
  claimed AS (
    INSERT INTO
      carrier_corrections AS cc (task_id, leased_until)
    SELECT
      id,
      now() + make_interval(secs => $3 / 1000.0)
    FROM
      due
    ON CONFLICT (task_id) DO UPDATE
    SET
      leased_until = EXCLUDED.leased_until
    WHERE
      cc.finished_at IS NULL
      AND cc.leased_until <= now()
    RETURNING
      cc.task_id
  )
  -- The full task shows the correction from now on, as the documents write it.
UPDATE tracking_tasks t
SET
  carrier_correction = (
    SELECT
      row_to_json(x)
    FROM
      (
        SELECT
          to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "startedAt",
          NULL AS "finishedAt",
          NULL AS outcome,
          '[]'::json AS tried
      ) x
  )
FROM
  claimed
WHERE
  t.id = claimed.task_id
RETURNING
  t.id AS task_id,
  t.user_id,
  t.carrier_code,
  t.tracking_number;
