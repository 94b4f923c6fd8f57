-- transit_weekly_on_time: run by src/db/transit.repository.ts

SELECT
  carrier_code,
  to_char(date_trunc('week', delivered_on), 'YYYY-MM-DD') AS week,
  sum(with_eta)::int AS with_eta,
  sum(on_time)::int AS on_time
FROM
  transit_days
WHERE
  delivered_on >= $1::date
GROUP BY
  carrier_code,
  week
ORDER BY
  carrier_code,
  week;
