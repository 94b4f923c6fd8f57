-- refresh_claim_lock: run by src/db/refresh.repository.ts

SELECT
  pg_advisory_xact_lock(hashtextextended ('refresh_claim ' || $1::text, 0));
