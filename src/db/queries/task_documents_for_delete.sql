-- task_documents_for_delete: run by src/db/task-deletes.ts

SELECT
  t.id,
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
          t.callback_url AS "callbackUrl",
          t.standard_status AS "standardStatus",
          t.milestone AS "milestone",
          t.carrier_status AS "carrierStatus",
          to_char(t.estimated_delivery_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "estimatedDeliveryAt",
          to_char(t.predicted_delivery_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "predictedDeliveryAt",
          t.prediction AS "prediction",
          t.origin_address AS "originAddress",
          t.destination_address AS "destinationAddress",
          t.proof_of_delivery AS "proofOfDelivery",
          current_setting('app.public_base_url') || '/t/' || t.page_token AS "trackingPageUrl",
          t.inactive_since IS NULL AS "active",
          to_char(t.stopped_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "stoppedAt",
          to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt",
          to_char(t.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "updatedAt",
          to_char(s.last_fetched_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "lastCheckedAt",
          to_char(s.next_refresh_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "nextCheckAt",
          COALESCE(t.carrier_changes, '[]'::json) AS "carrierChanges",
          t.carrier_correction AS "carrierCorrection",
          COALESCE(
            (
              SELECT
                (
                  '[' || string_agg(
                    row_to_json(v)::text,
                    ','
                    ORDER BY
                      e.event_time,
                      e.id
                  ) || ']'
                )::json
              FROM
                tracking_events e
                CROSS JOIN LATERAL (
                  SELECT
                    to_char(e.event_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "eventTime",
                    e.event_code AS "eventCode",
                    e.status AS "status",
                    e.status_info AS "statusInfo",
                    e.description AS "description",
                    e.exception_description AS "exceptionDescription",
                    e.country AS "country",
                    e.state AS "state",
                    e.city AS "city",
                    e.postal_code AS "postalCode",
                    e.address AS "address",
                    e.milestone AS "milestone",
                    to_char(e.event_time AT TIME ZONE e.utc_offset::interval, 'YYYY-MM-DD"T"HH24:MI:SS') || e.utc_offset AS "localTime",
                    e.utc_offset AS "utcOffset"
                ) v
              WHERE
                e.task_id = t.id
            ),
            '[]'::json
          ) AS "events"
        FROM
          (
            SELECT
          ) AS one
          LEFT JOIN task_schedule s ON s.task_id = t.id
      ) doc
  ) AS document
FROM
  tracking_tasks t
WHERE
  t.id = ANY ($1::bigint[]);
