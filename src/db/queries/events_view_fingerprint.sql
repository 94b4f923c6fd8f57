-- events_view_fingerprint: run by src/db/events-view.ts

SELECT
  fingerprint
FROM
  derived_definitions
WHERE
  name = 'events_view';
