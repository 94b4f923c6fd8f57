-- task_list: run by src/db/task-list.sql.ts

-- the default page: newest created first
SELECT
  t.document,
  t.id,
  t.sort_key
FROM
  (
    (
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
              FROM
                (
                  SELECT
                ) AS one
                LEFT JOIN task_schedule s ON s.task_id = t.id
            ) doc
        ) AS document,
        t.id,
        t.created_at::text AS sort_key,
        t.created_at
      FROM
        tracking_tasks t
      WHERE
        t.user_id = $1
        AND t.inactive_since IS NULL
      ORDER BY
        t.created_at DESC,
        t.id DESC
      LIMIT
        21
    )
    UNION ALL
    (
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
              FROM
                (
                  SELECT
                ) AS one
                LEFT JOIN task_schedule s ON s.task_id = t.id
            ) doc
        ) AS document,
        t.id,
        t.created_at::text AS sort_key,
        t.created_at
      FROM
        tracking_tasks t
      WHERE
        t.user_id = $1
        AND t.inactive_since IS NOT NULL
      ORDER BY
        t.created_at DESC,
        t.id DESC
      LIMIT
        21
    )
  ) t
ORDER BY
  t.created_at DESC,
  t.id DESC
LIMIT
  21;

-- the next page, by change, oldest first, with the events
SELECT
  t.document,
  t.id,
  t.sort_key
FROM
  (
    (
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
                ) AS "events",
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
              FROM
                (
                  SELECT
                ) AS one
                LEFT JOIN task_schedule s ON s.task_id = t.id
            ) doc
        ) AS document,
        t.id,
        t.updated_at::text AS sort_key,
        t.updated_at
      FROM
        tracking_tasks t
      WHERE
        t.user_id = $1
        AND (t.updated_at, t.id) > ($2::timestamptz, $3::bigint)
        AND t.inactive_since IS NULL
      ORDER BY
        t.updated_at ASC,
        t.id ASC
      LIMIT
        21
    )
    UNION ALL
    (
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
                ) AS "events",
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
              FROM
                (
                  SELECT
                ) AS one
                LEFT JOIN task_schedule s ON s.task_id = t.id
            ) doc
        ) AS document,
        t.id,
        t.updated_at::text AS sort_key,
        t.updated_at
      FROM
        tracking_tasks t
      WHERE
        t.user_id = $1
        AND (t.updated_at, t.id) > ($2::timestamptz, $3::bigint)
        AND t.inactive_since IS NOT NULL
      ORDER BY
        t.updated_at ASC,
        t.id ASC
      LIMIT
        21
    )
  ) t
ORDER BY
  t.updated_at ASC,
  t.id ASC
LIMIT
  21;

-- one milestone
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
        FROM
          (
            SELECT
          ) AS one
          LEFT JOIN task_schedule s ON s.task_id = t.id
      ) doc
  ) AS document,
  t.id,
  t.created_at::text AS sort_key
FROM
  tracking_tasks t
WHERE
  t.user_id = $1
  AND t.milestone = $2
ORDER BY
  t.created_at DESC,
  t.id DESC
LIMIT
  21;

-- a standard status (its milestones, merged)
SELECT
  t.document,
  t.id,
  t.sort_key
FROM
  (
    (
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
              FROM
                (
                  SELECT
                ) AS one
                LEFT JOIN task_schedule s ON s.task_id = t.id
            ) doc
        ) AS document,
        t.id,
        t.created_at::text AS sort_key,
        t.created_at
      FROM
        tracking_tasks t
      WHERE
        t.user_id = $1
        AND t.milestone = $2
      ORDER BY
        t.created_at DESC,
        t.id DESC
      LIMIT
        21
    )
    UNION ALL
    (
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
              FROM
                (
                  SELECT
                ) AS one
                LEFT JOIN task_schedule s ON s.task_id = t.id
            ) doc
        ) AS document,
        t.id,
        t.created_at::text AS sort_key,
        t.created_at
      FROM
        tracking_tasks t
      WHERE
        t.user_id = $1
        AND t.milestone = $3
      ORDER BY
        t.created_at DESC,
        t.id DESC
      LIMIT
        21
    )
    UNION ALL
    (
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
              FROM
                (
                  SELECT
                ) AS one
                LEFT JOIN task_schedule s ON s.task_id = t.id
            ) doc
        ) AS document,
        t.id,
        t.created_at::text AS sort_key,
        t.created_at
      FROM
        tracking_tasks t
      WHERE
        t.user_id = $1
        AND t.milestone = $4
      ORDER BY
        t.created_at DESC,
        t.id DESC
      LIMIT
        21
    )
  ) t
ORDER BY
  t.created_at DESC,
  t.id DESC
LIMIT
  21;

-- a carrier
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
        FROM
          (
            SELECT
          ) AS one
          LEFT JOIN task_schedule s ON s.task_id = t.id
      ) doc
  ) AS document,
  t.id,
  t.created_at::text AS sort_key
FROM
  tracking_tasks t
WHERE
  t.user_id = $1
  AND t.carrier_code = $2
ORDER BY
  t.created_at DESC,
  t.id DESC
LIMIT
  21;

-- a tracking number
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
        FROM
          (
            SELECT
          ) AS one
          LEFT JOIN task_schedule s ON s.task_id = t.id
      ) doc
  ) AS document,
  t.id,
  t.created_at::text AS sort_key
FROM
  tracking_tasks t
WHERE
  t.user_id = $1
  AND t.tracking_number = $2
ORDER BY
  t.created_at DESC,
  t.id DESC
LIMIT
  21;

-- a reference
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
        FROM
          (
            SELECT
          ) AS one
          LEFT JOIN task_schedule s ON s.task_id = t.id
      ) doc
  ) AS document,
  t.id,
  t.created_at::text AS sort_key
FROM
  tracking_tasks t
WHERE
  t.user_id = $1
  AND t.external_reference_no = (
    SELECT
      $2::text
  )
  AND t.external_reference_no <> ''
ORDER BY
  t.created_at DESC,
  t.id DESC
LIMIT
  21;

-- no reference
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
        FROM
          (
            SELECT
          ) AS one
          LEFT JOIN task_schedule s ON s.task_id = t.id
      ) doc
  ) AS document,
  t.id,
  t.created_at::text AS sort_key
FROM
  tracking_tasks t
WHERE
  t.user_id = $1
  AND t.external_reference_no = ''
ORDER BY
  t.created_at DESC,
  t.id DESC
LIMIT
  21;

-- active tasks
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
        FROM
          (
            SELECT
          ) AS one
          LEFT JOIN task_schedule s ON s.task_id = t.id
      ) doc
  ) AS document,
  t.id,
  t.created_at::text AS sort_key
FROM
  tracking_tasks t
WHERE
  t.user_id = $1
  AND t.inactive_since IS NULL
ORDER BY
  t.created_at DESC,
  t.id DESC
LIMIT
  21;

-- inactive tasks
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
        FROM
          (
            SELECT
          ) AS one
          LEFT JOIN task_schedule s ON s.task_id = t.id
      ) doc
  ) AS document,
  t.id,
  t.created_at::text AS sort_key
FROM
  tracking_tasks t
WHERE
  t.user_id = $1
  AND t.inactive_since IS NOT NULL
ORDER BY
  t.created_at DESC,
  t.id DESC
LIMIT
  21;

-- a range of the sorted time
SELECT
  t.document,
  t.id,
  t.sort_key
FROM
  (
    (
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
              FROM
                (
                  SELECT
                ) AS one
                LEFT JOIN task_schedule s ON s.task_id = t.id
            ) doc
        ) AS document,
        t.id,
        t.created_at::text AS sort_key,
        t.created_at
      FROM
        tracking_tasks t
      WHERE
        t.user_id = $1
        AND t.created_at >= (
          SELECT
            $2::timestamptz
        )
        AND t.created_at < (
          SELECT
            $3::timestamptz
        )
        AND t.inactive_since IS NULL
      ORDER BY
        t.created_at DESC,
        t.id DESC
      LIMIT
        21
    )
    UNION ALL
    (
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
              FROM
                (
                  SELECT
                ) AS one
                LEFT JOIN task_schedule s ON s.task_id = t.id
            ) doc
        ) AS document,
        t.id,
        t.created_at::text AS sort_key,
        t.created_at
      FROM
        tracking_tasks t
      WHERE
        t.user_id = $1
        AND t.created_at >= (
          SELECT
            $2::timestamptz
        )
        AND t.created_at < (
          SELECT
            $3::timestamptz
        )
        AND t.inactive_since IS NOT NULL
      ORDER BY
        t.created_at DESC,
        t.id DESC
      LIMIT
        21
    )
  ) t
ORDER BY
  t.created_at DESC,
  t.id DESC
LIMIT
  21;

-- a wide range of the other time, walked along the sort
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
        FROM
          (
            SELECT
          ) AS one
          LEFT JOIN task_schedule s ON s.task_id = t.id
      ) doc
  ) AS document,
  t.id,
  t.created_at::text AS sort_key
FROM
  (
    SELECT
      t.id
    FROM
      (
        (
          SELECT
            t.id,
            t.created_at
          FROM
            tracking_tasks t
          WHERE
            t.user_id = $1
            AND (t.updated_at + interval '0') >= (
              SELECT
                $2::timestamptz
            )
            AND (t.updated_at + interval '0') < (
              SELECT
                $3::timestamptz
            )
            AND t.inactive_since IS NULL
          ORDER BY
            t.created_at DESC,
            t.id DESC
          LIMIT
            21
        )
        UNION ALL
        (
          SELECT
            t.id,
            t.created_at
          FROM
            tracking_tasks t
          WHERE
            t.user_id = $1
            AND (t.updated_at + interval '0') >= (
              SELECT
                $2::timestamptz
            )
            AND (t.updated_at + interval '0') < (
              SELECT
                $3::timestamptz
            )
            AND t.inactive_since IS NOT NULL
          ORDER BY
            t.created_at DESC,
            t.id DESC
          LIMIT
            21
        )
      ) t
    ORDER BY
      t.created_at DESC,
      t.id DESC
    LIMIT
      21
  ) page
  JOIN tracking_tasks t ON t.id = page.id
ORDER BY
  t.created_at DESC,
  t.id DESC;

-- a narrow range of the other time, read and sorted
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
        FROM
          (
            SELECT
          ) AS one
          LEFT JOIN task_schedule s ON s.task_id = t.id
      ) doc
  ) AS document,
  t.id,
  t.created_at::text AS sort_key
FROM
  (
    SELECT
      t.id
    FROM
      (
        SELECT
          t.id,
          t.created_at
        FROM
          tracking_tasks t
        WHERE
          t.user_id = $1
          AND t.updated_at >= (
            SELECT
              $2::timestamptz
          )
          AND t.updated_at < (
            SELECT
              $3::timestamptz
          )
          AND t.inactive_since IS NULL
        UNION ALL
        SELECT
          t.id,
          t.created_at
        FROM
          tracking_tasks t
        WHERE
          t.user_id = $1
          AND t.updated_at >= (
            SELECT
              $2::timestamptz
          )
          AND t.updated_at < (
            SELECT
              $3::timestamptz
          )
          AND t.inactive_since IS NOT NULL
      ) t
    ORDER BY
      t.created_at + interval '0' DESC,
      t.id DESC
    LIMIT
      21
  ) page
  JOIN tracking_tasks t ON t.id = page.id
ORDER BY
  t.created_at DESC,
  t.id DESC;
