-- events_view_rebuild: run by src/db/events-view.ts

UPDATE tracking_tasks t
SET
  events_view = COALESCE(
    (
      SELECT
        (
          '[' || string_agg(
            row_to_json(v)::text,
            ','
            ORDER BY
              e.event_time,
              e.id
          ) || ']'
        )::json
      FROM
        tracking_events e
        CROSS JOIN LATERAL (
          SELECT
            to_char(e.event_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "eventTime",
            e.event_code AS "eventCode",
            e.status AS "status",
            e.status_info AS "statusInfo",
            e.description AS "description",
            e.exception_description AS "exceptionDescription",
            e.country AS "country",
            e.state AS "state",
            e.city AS "city",
            e.postal_code AS "postalCode",
            e.address AS "address"
        ) v
      WHERE
        e.task_id = t.id
    ),
    '[]'::json
  )
WHERE
  t.id > $1
  AND t.id <= $2
  AND EXISTS (
    SELECT
      1
    FROM
      tracking_events e
    WHERE
      e.task_id = t.id
  );
