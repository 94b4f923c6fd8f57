-- route_tasks_link: run by src/db/route-registration.repository.ts

INSERT INTO
  route_tasks (task_id, carrier_code, tracking_number)
SELECT
  s.task_id,
  s.carrier_code,
  t.tracking_number
FROM
  unnest($1::text[]) AS c (carrier_code)
  JOIN task_schedule s ON s.carrier_code = c.carrier_code
  AND s.next_refresh_at IS NOT NULL
  AND s.task_id > $2::bigint
  JOIN tracking_tasks t ON t.id = s.task_id
WHERE
  NOT EXISTS (
    SELECT
      1
    FROM
      route_tasks rt
    WHERE
      rt.task_id = s.task_id
      AND rt.carrier_code = s.carrier_code
  )
ON CONFLICT (task_id) DO UPDATE
SET
  carrier_code = EXCLUDED.carrier_code,
  tracking_number = EXCLUDED.tracking_number;
