-- Custom SQL migration file, put your code below! --
-- Write cost independent of the number of banks (db/search-index.ts). 0005 gave every bank three
-- triggers per tier; SQLite compiles every trigger of a table into each INSERT/UPDATE/DELETE on it,
-- so a 100-fact retain cost 50 ms with one bank and 1.5 s with 300. Now each tier has three triggers
-- for all banks, and they only note which rows changed in `search_index_pending`; the bank's index
-- is brought up to date from that list (in the writer's transaction, or before the next search).
-- The per-bank triggers are named after each bank, so they are dropped when the database is opened
-- (`syncSearchIndexes`), which also rebuilds each bank's index in its new (contentless) form.
-- NOT EXISTS rather than INSERT OR IGNORE: inside a trigger, the conflict policy of the outer
-- statement (e.g. an upsert) replaces the trigger's own.
CREATE TABLE `search_index_pending` (
  `bank_id` text NOT NULL,
  `tbl` text NOT NULL,
  `pk` integer NOT NULL,
  PRIMARY KEY (`bank_id`, `tbl`, `pk`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TRIGGER `facts_search_ai` AFTER INSERT ON `facts` BEGIN
  INSERT INTO search_index_pending SELECT new.bank_id, 'facts', new.pk
    WHERE NOT EXISTS (SELECT 1 FROM search_index_pending WHERE bank_id = new.bank_id AND tbl = 'facts' AND pk = new.pk);
END;
--> statement-breakpoint
CREATE TRIGGER `facts_search_ad` AFTER DELETE ON `facts` BEGIN
  INSERT INTO search_index_pending SELECT old.bank_id, 'facts', old.pk
    WHERE NOT EXISTS (SELECT 1 FROM search_index_pending WHERE bank_id = old.bank_id AND tbl = 'facts' AND pk = old.pk);
END;
--> statement-breakpoint
CREATE TRIGGER `facts_search_au` AFTER UPDATE OF text, tags, bank_id, pk ON `facts` BEGIN
  INSERT INTO search_index_pending SELECT old.bank_id, 'facts', old.pk
    WHERE NOT EXISTS (SELECT 1 FROM search_index_pending WHERE bank_id = old.bank_id AND tbl = 'facts' AND pk = old.pk);
  INSERT INTO search_index_pending SELECT new.bank_id, 'facts', new.pk
    WHERE NOT EXISTS (SELECT 1 FROM search_index_pending WHERE bank_id = new.bank_id AND tbl = 'facts' AND pk = new.pk);
END;
--> statement-breakpoint
CREATE TRIGGER `observations_search_ai` AFTER INSERT ON `observations` BEGIN
  INSERT INTO search_index_pending SELECT new.bank_id, 'observations', new.pk
    WHERE NOT EXISTS (SELECT 1 FROM search_index_pending WHERE bank_id = new.bank_id AND tbl = 'observations' AND pk = new.pk);
END;
--> statement-breakpoint
CREATE TRIGGER `observations_search_ad` AFTER DELETE ON `observations` BEGIN
  INSERT INTO search_index_pending SELECT old.bank_id, 'observations', old.pk
    WHERE NOT EXISTS (SELECT 1 FROM search_index_pending WHERE bank_id = old.bank_id AND tbl = 'observations' AND pk = old.pk);
END;
--> statement-breakpoint
CREATE TRIGGER `observations_search_au` AFTER UPDATE OF text, tags, bank_id, pk ON `observations` BEGIN
  INSERT INTO search_index_pending SELECT old.bank_id, 'observations', old.pk
    WHERE NOT EXISTS (SELECT 1 FROM search_index_pending WHERE bank_id = old.bank_id AND tbl = 'observations' AND pk = old.pk);
  INSERT INTO search_index_pending SELECT new.bank_id, 'observations', new.pk
    WHERE NOT EXISTS (SELECT 1 FROM search_index_pending WHERE bank_id = new.bank_id AND tbl = 'observations' AND pk = new.pk);
END;
--> statement-breakpoint
CREATE TRIGGER `mental_models_search_ai` AFTER INSERT ON `mental_models` BEGIN
  INSERT INTO search_index_pending SELECT new.bank_id, 'mental_models', new.pk
    WHERE NOT EXISTS (SELECT 1 FROM search_index_pending WHERE bank_id = new.bank_id AND tbl = 'mental_models' AND pk = new.pk);
END;
--> statement-breakpoint
CREATE TRIGGER `mental_models_search_ad` AFTER DELETE ON `mental_models` BEGIN
  INSERT INTO search_index_pending SELECT old.bank_id, 'mental_models', old.pk
    WHERE NOT EXISTS (SELECT 1 FROM search_index_pending WHERE bank_id = old.bank_id AND tbl = 'mental_models' AND pk = old.pk);
END;
--> statement-breakpoint
CREATE TRIGGER `mental_models_search_au` AFTER UPDATE OF name, source_query, content, tags, bank_id, pk ON `mental_models` BEGIN
  INSERT INTO search_index_pending SELECT old.bank_id, 'mental_models', old.pk
    WHERE NOT EXISTS (SELECT 1 FROM search_index_pending WHERE bank_id = old.bank_id AND tbl = 'mental_models' AND pk = old.pk);
  INSERT INTO search_index_pending SELECT new.bank_id, 'mental_models', new.pk
    WHERE NOT EXISTS (SELECT 1 FROM search_index_pending WHERE bank_id = new.bank_id AND tbl = 'mental_models' AND pk = new.pk);
END;
