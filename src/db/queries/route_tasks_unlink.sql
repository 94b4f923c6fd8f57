-- route_tasks_unlink: run by src/db/route-registration.repository.ts

DELETE FROM route_tasks rt
WHERE
  NOT EXISTS (
    SELECT
      1
    FROM
      task_schedule s
    WHERE
      s.task_id = rt.task_id
  );
