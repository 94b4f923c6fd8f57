-- transit_counts_by_carrier: run by src/db/transit.repository.ts

SELECT
  carrier_code,
  NULL AS origin_country,
  NULL AS origin_state,
  NULL AS destination_country,
  NULL AS destination_state,
  transit_bucket,
  sum(deliveries)::int AS deliveries,
  sum(with_eta)::int AS with_eta,
  sum(on_time)::int AS on_time,
  sum(exceptions)::int AS exceptions
FROM
  (
    SELECT
      carrier_code,
      origin_country,
      origin_state,
      destination_country,
      destination_state,
      transit_bucket,
      deliveries,
      with_eta,
      on_time,
      exceptions
    FROM
      transit_months
    WHERE
      $2::boolean
      AND user_id = $1
      AND month BETWEEN COALESCE($3::date, '-infinity') AND COALESCE($4::date, 'infinity')
      AND (
        $5::text IS NULL
        OR carrier_code = $5
      )
      AND (
        $6::text IS NULL
        OR origin_country = $6
      )
      AND (
        $7::text IS NULL
        OR destination_country = $7
      )
    UNION ALL
    SELECT
      carrier_code,
      origin_country,
      origin_state,
      destination_country,
      destination_state,
      transit_bucket,
      deliveries,
      with_eta,
      on_time,
      exceptions
    FROM
      transit_days
    WHERE
      user_id = $1
      AND delivered_on BETWEEN $8::date AND $9::date
      AND (
        $5::text IS NULL
        OR carrier_code = $5
      )
      AND (
        $6::text IS NULL
        OR origin_country = $6
      )
      AND (
        $7::text IS NULL
        OR destination_country = $7
      )
    UNION ALL
    SELECT
      carrier_code,
      origin_country,
      origin_state,
      destination_country,
      destination_state,
      transit_bucket,
      deliveries,
      with_eta,
      on_time,
      exceptions
    FROM
      transit_days
    WHERE
      user_id = $1
      AND delivered_on BETWEEN $10::date AND $11::date
      AND (
        $5::text IS NULL
        OR carrier_code = $5
      )
      AND (
        $6::text IS NULL
        OR origin_country = $6
      )
      AND (
        $7::text IS NULL
        OR destination_country = $7
      )
  ) AS counted
GROUP BY
  carrier_code,
  transit_bucket;
