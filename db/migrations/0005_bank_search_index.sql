-- Custom SQL migration file, put your code below! --
-- One shared FTS5 index per tier becomes one index per bank and tier (db/search-index.ts): bm25
-- walks each query term's doclist across every row of its table, so a small bank paid for the
-- words of every other bank. The per-bank indexes, which also index tags, are named after each
-- bank, so they are built when the database is opened (`syncSearchIndexes`), not here.
-- The shared indexes' fts5vocab tables (0003) go first; each bank index gets its own vocab table.
DROP TABLE IF EXISTS `facts_fts_vocab`;
--> statement-breakpoint
DROP TABLE IF EXISTS `observations_fts_vocab`;
--> statement-breakpoint
DROP TABLE IF EXISTS `mental_models_fts_vocab`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `facts_fts_ai`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `facts_fts_ad`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `facts_fts_au`;
--> statement-breakpoint
DROP TABLE IF EXISTS `facts_fts`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `observations_fts_ai`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `observations_fts_ad`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `observations_fts_au`;
--> statement-breakpoint
DROP TABLE IF EXISTS `observations_fts`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `mental_models_fts_ai`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `mental_models_fts_ad`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `mental_models_fts_au`;
--> statement-breakpoint
DROP TABLE IF EXISTS `mental_models_fts`;
