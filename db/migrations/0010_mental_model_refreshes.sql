CREATE TABLE `mental_model_refreshes` (
	`run_id` text PRIMARY KEY NOT NULL,
	`bank_id` text NOT NULL,
	`model_id` text NOT NULL,
	`base_version` integer NOT NULL,
	`decision` text,
	`accepted_version` integer,
	`decided_at` text
);
--> statement-breakpoint
CREATE INDEX `mental_model_refreshes_model_idx` ON `mental_model_refreshes` (`bank_id`,`model_id`);