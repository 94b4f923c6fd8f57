-- events_view_last_task: run by src/db/events-view.ts

SELECT
  max(task_id) AS max
FROM
  tracking_events;
