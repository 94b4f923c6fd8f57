-- refresh_keep_claim: run by src/db/refresh.repository.ts

UPDATE refresh_claims
SET
  task_ids = $2::bigint[]
WHERE
  lease_token = $1;
