-- console_task_counts: run by src/db/console.repository.ts

SELECT
  standard_status,
  milestone,
  carrier_code,
  count(*)::int AS tasks
FROM
  tracking_tasks
GROUP BY
  GROUPING SETS ((standard_status), (milestone), (carrier_code));
