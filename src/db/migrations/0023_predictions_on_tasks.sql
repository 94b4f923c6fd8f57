-- A task's predicted delivery, made from its lanes (src/db/prediction.sql.ts) whenever the refresh
-- changes the task and again for every task in transit when predictionSharing changes, and kept
-- on its row: a full task or a page of the list reads it without a lane lookup. The prediction is
-- stored as the text the documents write (json), as the addresses are. Nullable, no default: no
-- rewrite of the table. Tasks already in transit gain a prediction at their next change.
ALTER TABLE tracking_tasks
  ADD COLUMN predicted_delivery_at timestamptz,
  ADD COLUMN prediction json;
