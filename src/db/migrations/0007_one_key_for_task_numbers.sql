-- One index instead of two for a task's number. The unique key (user_id, carrier_code,
-- tracking_number) and the query's (user_id, tracking_number, id DESC) were both maintained on
-- every subscribe; a unique key in the order (user_id, tracking_number, carrier_code) serves both:
-- ON CONFLICT infers it from the same three columns, and the query by number reads the user's
-- tasks with that number (one per carrier, so one or two rows) and keeps the newest. Measured on a
-- copy of tracking_tasks, 100-row upserts: 15,800-18,300 → 22,500-25,100 rows/s on the embedded
-- database, 21,400-24,300 → 27,600-34,400 on PostgreSQL.
CREATE UNIQUE INDEX tracking_tasks_user_number_carrier_key ON tracking_tasks (user_id, tracking_number, carrier_code);
ALTER TABLE tracking_tasks DROP CONSTRAINT tracking_tasks_user_carrier_number_key;
ALTER TABLE tracking_tasks ADD CONSTRAINT tracking_tasks_user_number_carrier_key UNIQUE USING INDEX tracking_tasks_user_number_carrier_key;
DROP INDEX tracking_tasks_user_number_idx;
