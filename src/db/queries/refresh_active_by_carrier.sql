-- refresh_active_by_carrier: run by src/db/refresh.repository.ts

SELECT
  carrier_code,
  count(*)::int AS tasks
FROM
  task_schedule
WHERE
  next_refresh_at IS NOT NULL
GROUP BY
  carrier_code;
