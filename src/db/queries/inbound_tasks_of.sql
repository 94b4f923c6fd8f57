-- inbound_tasks_of: run by src/db/inbound.repository.ts

SELECT
  rt.task_id,
  rt.carrier_code,
  rt.tracking_number,
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
  unnest($1::text[], $2::text[]) AS n (carrier_code, tracking_number)
  JOIN route_tasks rt ON rt.carrier_code = n.carrier_code
  AND rt.tracking_number = n.tracking_number
  JOIN task_schedule s ON s.task_id = rt.task_id
  AND s.carrier_code = rt.carrier_code
  AND s.next_refresh_at IS NOT NULL;
