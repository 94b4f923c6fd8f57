-- audit_add: run by src/db/audit.repository.ts

INSERT INTO
  audit_log (actor_kind, operator_id, actor, action, target_kind, target_id, address, outcome, detail)
VALUES
  ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb);
