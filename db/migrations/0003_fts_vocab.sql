-- Custom SQL migration file, put your code below! ---- Document frequency per porter stem for each FTS5 index: the offline model weighs a question's
-- words by how few memories use them (db/term-stats.ts). fts5vocab tables read the index directly
-- and store nothing.
CREATE VIRTUAL TABLE `facts_fts_vocab` USING fts5vocab(`facts_fts`, 'row');
--> statement-breakpoint
CREATE VIRTUAL TABLE `observations_fts_vocab` USING fts5vocab(`observations_fts`, 'row');
--> statement-breakpoint
CREATE VIRTUAL TABLE `mental_models_fts_vocab` USING fts5vocab(`mental_models_fts`, 'row');
