-- refresh_update_tasks: run by src/db/refresh-writes.ts

WITH
  scheduled AS (
    -- The schedule rows, locked by lockClaimedTasks: written in the same statement, and read
    -- from here by the full task below (the table shows the statement's start).
    UPDATE task_schedule s
    SET
      next_refresh_at = now() + make_interval(secs => u.next_refresh_in_ms / 1000),
      refresh_failures = 0,
      due_since = NULL,
      last_fetched_at = now()
    FROM
      unnest($1::bigint[], $15::float8[]) AS u (id, next_refresh_in_ms)
    WHERE
      s.task_id = u.id
    RETURNING
      s.*
  ),
  updated AS (
    UPDATE tracking_tasks t
    SET
      standard_status = u.standard_status,
      milestone = u.milestone,
      carrier_status = u.carrier_status,
      estimated_delivery_at = COALESCE(u.estimated_delivery_at, t.estimated_delivery_at),
      origin_address = COALESCE(u.origin_address, t.origin_address),
      destination_address = COALESCE(u.destination_address, t.destination_address),
      proof_of_delivery = COALESCE(u.proof_of_delivery, t.proof_of_delivery),
      last_new_event_at = u.last_new_event_at,
      transit_started_at = u.transit_started_at,
      first_estimated_delivery_at = u.first_estimated_delivery_at,
      passed_exception = u.passed_exception,
      transit_counted = u.transit_counted,
      -- Made again at every change, from the lanes as they are now (prediction.sql.ts).
      (predicted_delivery_at, prediction) = (
        SELECT
          (u.transit_started_at + lane.median_hours * interval '1 hour'),
          (
            SELECT
              row_to_json(x)
            FROM
              (
                SELECT
                  lane.basis AS basis,
                  lane.deliveries AS samples,
                  to_char(
                    (u.transit_started_at + lane.p10_hours * interval '1 hour') AT TIME ZONE 'UTC',
                    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
                  ) AS earliest,
                  to_char(
                    (u.transit_started_at + lane.p90_hours * interval '1 hour') AT TIME ZONE 'UTC',
                    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
                  ) AS latest
              ) x
          )
        FROM
          (
            SELECT
              CASE
                WHEN (
                  SELECT
                    prediction_sharing
                  FROM
                    settings
                ) = 'own' THEN t.user_id
                ELSE 0
              END AS user_id
          ) AS scope,
          LATERAL (
            SELECT
              'states' AS basis,
              l.deliveries,
              l.p10_hours,
              l.median_hours,
              l.p90_hours
            FROM
              transit_lanes l
            WHERE
              l.scope_user_id = scope.user_id
              AND l.carrier_code = t.carrier_code
              AND (l.origin_country, l.origin_state, l.destination_country, l.destination_state) = (
                COALESCE(COALESCE(u.origin_address, t.origin_address) ->> 'country', ''),
                COALESCE(COALESCE(u.origin_address, t.origin_address) ->> 'state', ''),
                COALESCE(COALESCE(u.destination_address, t.destination_address) ->> 'country', ''),
                COALESCE(COALESCE(u.destination_address, t.destination_address) ->> 'state', '')
              )
              AND l.deliveries >= 20
            UNION ALL
            SELECT
              'countries' AS basis,
              l.deliveries,
              l.p10_hours,
              l.median_hours,
              l.p90_hours
            FROM
              transit_lanes l
            WHERE
              l.scope_user_id = scope.user_id
              AND l.carrier_code = t.carrier_code
              AND (l.origin_country, l.origin_state, l.destination_country, l.destination_state) = (
                COALESCE(COALESCE(u.origin_address, t.origin_address) ->> 'country', ''),
                '*',
                COALESCE(COALESCE(u.destination_address, t.destination_address) ->> 'country', ''),
                '*'
              )
              AND l.deliveries >= 20
            UNION ALL
            SELECT
              'carrier' AS basis,
              l.deliveries,
              l.p10_hours,
              l.median_hours,
              l.p90_hours
            FROM
              transit_lanes l
            WHERE
              l.scope_user_id = scope.user_id
              AND l.carrier_code = t.carrier_code
              AND (l.origin_country, l.origin_state, l.destination_country, l.destination_state) = ('*', '*', '*', '*')
              AND l.deliveries >= 20
          ) AS lane
        WHERE
          u.transit_started_at IS NOT NULL
          AND u.standard_status NOT IN ('delivered', 'returned', 'cancelled', 'expired')
        LIMIT
          1
      ),
      events_view = CASE
        WHEN u.gained_events THEN COALESCE(
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
                  e.address AS "address"
              ) v
            WHERE
              e.task_id = t.id
          ),
          '[]'::json
        )
        ELSE t.events_view
      END,
      answer_fingerprint = u.answer_fingerprint,
      inactive_since = CASE
        WHEN u.terminal THEN now()
      END,
      -- Moves only when something the user can see changed, not on every fetch.
      updated_at = CASE
        WHEN u.status_changed
        OR u.milestone <> t.milestone
        OR u.gained_events
        OR u.terminal
        OR (
          u.estimated_delivery_at IS NOT NULL
          AND u.estimated_delivery_at IS DISTINCT FROM t.estimated_delivery_at
        )
        OR (
          u.origin_address IS NOT NULL
          AND u.origin_address::text IS DISTINCT FROM t.origin_address::text
        )
        OR (
          u.destination_address IS NOT NULL
          AND u.destination_address::text IS DISTINCT FROM t.destination_address::text
        )
        OR (
          u.proof_of_delivery IS NOT NULL
          AND u.proof_of_delivery::text IS DISTINCT FROM t.proof_of_delivery::text
        ) THEN now()
        ELSE t.updated_at
      END
    FROM
      unnest(
        $1::bigint[],
        $2::text[],
        $3::text[],
        $4::text[],
        $5::timestamptz[],
        $6::json[],
        $7::json[],
        $8::timestamptz[],
        $9::boolean[],
        $10::text[],
        $11::boolean[],
        $12::boolean[],
        $13::boolean[],
        $14::boolean[],
        $16::json[],
        $17::timestamptz[],
        $18::timestamptz[],
        $19::boolean[],
        $20::boolean[]
      ) AS u (
        id,
        standard_status,
        milestone,
        carrier_status,
        estimated_delivery_at,
        origin_address,
        destination_address,
        last_new_event_at,
        terminal,
        answer_fingerprint,
        gained_events,
        status_changed,
        tells,
        full_events,
        proof_of_delivery,
        transit_started_at,
        first_estimated_delivery_at,
        passed_exception,
        transit_counted
      )
    WHERE
      t.id = u.id
    RETURNING
      t.*,
      u.tells,
      u.full_events
  )
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
          t.standard_status AS "standardStatus",
          t.carrier_status AS "carrierStatus",
          to_char(t.estimated_delivery_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "estimatedDeliveryAt",
          t.origin_address AS "originAddress",
          t.destination_address AS "destinationAddress",
          t.events_view AS "events"
      ) doc
  ) AS task,
  CASE
    WHEN t.full_events THEN (
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
            LEFT JOIN scheduled s ON s.task_id = t.id
        ) doc
    )
  END AS full
FROM
  updated t
WHERE
  t.tells;
