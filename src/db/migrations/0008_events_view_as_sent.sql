-- events_view holds the events exactly as the query endpoint sends them, eventTime included
-- (ISO 8601 in UTC with milliseconds, as JavaScript's toISOString writes it; json_build_object
-- wrote PostgreSQL's own form, "2026-11-22T10:00:00.123456+00:00"). The query endpoint now puts
-- the column's text into its answer as it is: parsing the events and serialising them again was
-- most of the API process's work per query. Rebuilt for every task that has events.
UPDATE tracking_tasks t
   SET events_view = (
         SELECT json_agg(json_build_object(
                  'eventTime', to_char(e.event_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                  'eventCode', e.event_code, 'status', e.status,
                  'statusInfo', e.status_info, 'description', e.description,
                  'exceptionDescription', e.exception_description, 'country', e.country,
                  'state', e.state, 'city', e.city, 'postalCode', e.postal_code, 'address', e.address)
                ORDER BY e.event_time, e.id)
           FROM tracking_events e
          WHERE e.task_id = t.id)
 WHERE EXISTS (SELECT 1 FROM tracking_events e WHERE e.task_id = t.id);
