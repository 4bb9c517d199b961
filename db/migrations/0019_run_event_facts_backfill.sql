-- Custom SQL migration file, put your code below! --
-- What the mental-model pages and retention read in runs' events' JSON until 0018 (a finished run's
-- events are now packed, db/queries/run-event-codec.ts): the tiers each run's `run.started` enabled,
-- and the mental models its `tool.result` events returned. Filled here from the existing rows; new
-- runs' are written with their events (db/queries/runs.ts).
UPDATE `runs` SET `enabled_tiers` = (
  SELECT json_extract(e.`payload`, '$.enabledTiers') FROM `run_events` e
  WHERE e.`run_id` = `runs`.`id` AND e.`type` = 'run.started' ORDER BY e.`seq` LIMIT 1
) WHERE `enabled_tiers` IS NULL;--> statement-breakpoint
INSERT OR IGNORE INTO `run_mental_model_reads` (`model_id`, `run_id`)
  SELECT DISTINCT j.`value`, e.`run_id` FROM `run_events` e JOIN json_each(e.`payload`, '$.ids.mental_models') j
  WHERE e.`type` = 'tool.result' AND e.`run_id` IN (SELECT `id` FROM `runs`);
