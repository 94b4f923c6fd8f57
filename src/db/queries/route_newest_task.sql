-- route_newest_task: run by src/db/route-registration.repository.ts

SELECT
  max(id) AS id
FROM
  tracking_tasks;
