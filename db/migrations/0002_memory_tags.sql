-- Custom SQL migration file, put your code below! --
-- One row per (memory, tag), kept in sync by triggers: the mental-model freshness check counts
-- memories newer than a refresh that carry all of a model's tags with an index range scan
-- instead of parsing every memory's JSON tags.
CREATE TABLE `memory_tags` (
  `bank_id` text NOT NULL,
  `tag` text NOT NULL,
  `tier` text NOT NULL,
  `pk` integer NOT NULL,
  `updated_at` text NOT NULL,
  PRIMARY KEY (`tier`, `pk`, `tag`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `memory_tags_newer_idx` ON `memory_tags` (`bank_id`, `tag`, `updated_at`);
--> statement-breakpoint
CREATE TRIGGER `facts_tags_ai` AFTER INSERT ON `facts` BEGIN
  INSERT OR IGNORE INTO `memory_tags`(bank_id, tag, tier, pk, updated_at) SELECT new.bank_id, value, 'fact', new.pk, new.updated_at FROM json_each(new.tags);
END;
--> statement-breakpoint
CREATE TRIGGER `facts_tags_au` AFTER UPDATE OF `tags`, `updated_at`, `bank_id` ON `facts` BEGIN
  DELETE FROM `memory_tags` WHERE tier = 'fact' AND pk = old.pk;
  INSERT OR IGNORE INTO `memory_tags`(bank_id, tag, tier, pk, updated_at) SELECT new.bank_id, value, 'fact', new.pk, new.updated_at FROM json_each(new.tags);
END;
--> statement-breakpoint
CREATE TRIGGER `facts_tags_ad` AFTER DELETE ON `facts` BEGIN
  DELETE FROM `memory_tags` WHERE tier = 'fact' AND pk = old.pk;
END;
--> statement-breakpoint
INSERT OR IGNORE INTO `memory_tags`(bank_id, tag, tier, pk, updated_at)
  SELECT m.bank_id, t.value, 'fact', m.pk, m.updated_at FROM `facts` m, json_each(m.tags) t;
--> statement-breakpoint
CREATE TRIGGER `observations_tags_ai` AFTER INSERT ON `observations` BEGIN
  INSERT OR IGNORE INTO `memory_tags`(bank_id, tag, tier, pk, updated_at) SELECT new.bank_id, value, 'observation', new.pk, new.updated_at FROM json_each(new.tags);
END;
--> statement-breakpoint
CREATE TRIGGER `observations_tags_au` AFTER UPDATE OF `tags`, `updated_at`, `bank_id` ON `observations` BEGIN
  DELETE FROM `memory_tags` WHERE tier = 'observation' AND pk = old.pk;
  INSERT OR IGNORE INTO `memory_tags`(bank_id, tag, tier, pk, updated_at) SELECT new.bank_id, value, 'observation', new.pk, new.updated_at FROM json_each(new.tags);
END;
--> statement-breakpoint
CREATE TRIGGER `observations_tags_ad` AFTER DELETE ON `observations` BEGIN
  DELETE FROM `memory_tags` WHERE tier = 'observation' AND pk = old.pk;
END;
--> statement-breakpoint
INSERT OR IGNORE INTO `memory_tags`(bank_id, tag, tier, pk, updated_at)
  SELECT m.bank_id, t.value, 'observation', m.pk, m.updated_at FROM `observations` m, json_each(m.tags) t;
