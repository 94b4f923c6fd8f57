-- tasks_by_number_many: run by src/db/task.sql.ts

SELECT
  q.ord,
  x.document
FROM
  unnest($1::bigint[], $2::text[]) WITH ORDINALITY AS q (user_id, tracking_number, ord)
  CROSS JOIN LATERAL (
    SELECT
      (
        SELECT
          row_to_json(doc)::text
        FROM
          (
            SELECT
              t.id AS "taskId",
              t.carrier_code AS "carrierCode",
              t.tracking_number AS "trackingNumber",
              t.external_reference_no AS "externalReferenceNo",
              t.standard_status AS "standardStatus",
              t.carrier_status AS "carrierStatus",
              to_char(t.estimated_delivery_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "estimatedDeliveryAt",
              t.origin_address AS "originAddress",
              t.destination_address AS "destinationAddress",
              t.events_view AS "events",
              (
                SELECT
                  row_to_json(w)
                FROM
                  (
                    SELECT
                      d.status AS "status",
                      d.attempt_count AS "attemptCount",
                      to_char(
                        CASE
                          WHEN d.status = 'retry_wait' THEN d.next_attempt_at
                        END AT TIME ZONE 'UTC',
                        'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
                      ) AS "nextRetryAt",
                      to_char(d.last_attempt_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "lastAttemptAt",
                      d.response_status_code AS "responseStatusCode",
                      d.error_message AS "errorMessage"
                    FROM
                      deliveries d
                    WHERE
                      d.task_id = t.id
                      AND d.target = 'callback'
                    ORDER BY
                      d.id DESC
                    LIMIT
                      1
                  ) w
              ) AS "latestWebhook"
          ) doc
      ) AS document
    FROM
      tracking_tasks t
    WHERE
      t.user_id = q.user_id
      AND t.tracking_number = q.tracking_number
    ORDER BY
      t.id DESC
    LIMIT
      1
  ) x;
