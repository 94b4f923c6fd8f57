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
  transit_days
WHERE
  user_id = $1
  AND delivered_on BETWEEN COALESCE($2::date, '-infinity') AND COALESCE($3::date, 'infinity')
  AND (
    $4::text IS NULL
    OR carrier_code = $4
  )
  AND (
    $5::text IS NULL
    OR origin_country = $5
  )
  AND (
    $6::text IS NULL
    OR destination_country = $6
  )
GROUP BY
  carrier_code,
  transit_bucket;
