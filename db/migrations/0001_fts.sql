-- Custom SQL migration file, put your code below! --
CREATE VIRTUAL TABLE `facts_fts` USING fts5(`text`, content='facts', content_rowid='pk', tokenize='porter unicode61');
--> statement-breakpoint
CREATE TRIGGER `facts_fts_ai` AFTER INSERT ON `facts` BEGIN
  INSERT INTO `facts_fts`(rowid, `text`) VALUES (new.pk, new.text);
END;
--> statement-breakpoint
CREATE TRIGGER `facts_fts_ad` AFTER DELETE ON `facts` BEGIN
  INSERT INTO `facts_fts`(`facts_fts`, rowid, `text`) VALUES ('delete', old.pk, old.text);
END;
--> statement-breakpoint
CREATE TRIGGER `facts_fts_au` AFTER UPDATE OF `text` ON `facts` BEGIN
  INSERT INTO `facts_fts`(`facts_fts`, rowid, `text`) VALUES ('delete', old.pk, old.text);
  INSERT INTO `facts_fts`(rowid, `text`) VALUES (new.pk, new.text);
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE `observations_fts` USING fts5(`text`, content='observations', content_rowid='pk', tokenize='porter unicode61');
--> statement-breakpoint
CREATE TRIGGER `observations_fts_ai` AFTER INSERT ON `observations` BEGIN
  INSERT INTO `observations_fts`(rowid, `text`) VALUES (new.pk, new.text);
END;
--> statement-breakpoint
CREATE TRIGGER `observations_fts_ad` AFTER DELETE ON `observations` BEGIN
  INSERT INTO `observations_fts`(`observations_fts`, rowid, `text`) VALUES ('delete', old.pk, old.text);
END;
--> statement-breakpoint
CREATE TRIGGER `observations_fts_au` AFTER UPDATE OF `text` ON `observations` BEGIN
  INSERT INTO `observations_fts`(`observations_fts`, rowid, `text`) VALUES ('delete', old.pk, old.text);
  INSERT INTO `observations_fts`(rowid, `text`) VALUES (new.pk, new.text);
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE `mental_models_fts` USING fts5(`name`, `source_query`, `content`, content='mental_models', content_rowid='pk', tokenize='porter unicode61');
--> statement-breakpoint
CREATE TRIGGER `mental_models_fts_ai` AFTER INSERT ON `mental_models` BEGIN
  INSERT INTO `mental_models_fts`(rowid, `name`, `source_query`, `content`) VALUES (new.pk, new.name, new.source_query, new.content);
END;
--> statement-breakpoint
CREATE TRIGGER `mental_models_fts_ad` AFTER DELETE ON `mental_models` BEGIN
  INSERT INTO `mental_models_fts`(`mental_models_fts`, rowid, `name`, `source_query`, `content`) VALUES ('delete', old.pk, old.name, old.source_query, old.content);
END;
--> statement-breakpoint
CREATE TRIGGER `mental_models_fts_au` AFTER UPDATE OF `name`, `source_query`, `content` ON `mental_models` BEGIN
  INSERT INTO `mental_models_fts`(`mental_models_fts`, rowid, `name`, `source_query`, `content`) VALUES ('delete', old.pk, old.name, old.source_query, old.content);
  INSERT INTO `mental_models_fts`(rowid, `name`, `source_query`, `content`) VALUES (new.pk, new.name, new.source_query, new.content);
END;
--> statement-breakpoint
CREATE TABLE `meta` (`key` text PRIMARY KEY NOT NULL, `value` text NOT NULL);
