-- inbound_tasks_of: run by src/db/inbound.repository.ts

SELECT
  rt.task_id,
  (
    SELECT
      e.event_time
    FROM
      tracking_events e
    WHERE
      e.task_id = rt.task_id
    ORDER BY
      e.event_time DESC
    LIMIT
      1
  ) AS newest_event_at
FROM
  route_tasks rt
  JOIN task_schedule s ON s.task_id = rt.task_id
  AND s.carrier_code = rt.carrier_code
  AND s.next_refresh_at IS NOT NULL
WHERE
  rt.carrier_code = $1
  AND rt.tracking_number = $2;
