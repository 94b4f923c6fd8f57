-- What the carrier says of a delivery (the full task's proofOfDelivery), stored as the JSON text
-- the documents write (domain/task-document.ts, proofOfDeliveryJson): NULL until a fetch returns
-- one, then kept until another does, as the ETA. No default, so adding it rewrites no row.
ALTER TABLE tracking_tasks ADD COLUMN proof_of_delivery json;
