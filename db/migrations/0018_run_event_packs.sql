CREATE TABLE `run_event_packs` (
	`run_id` text NOT NULL,
	`first_seq` integer NOT NULL,
	`last_seq` integer NOT NULL,
	`events` integer NOT NULL,
	`format` integer NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`run_id`, `first_seq`),
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `run_mental_model_reads` (
	`model_id` text NOT NULL,
	`run_id` text NOT NULL,
	PRIMARY KEY(`model_id`, `run_id`),
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `run_mental_model_reads_run_idx` ON `run_mental_model_reads` (`run_id`);--> statement-breakpoint
ALTER TABLE `runs` ADD `enabled_tiers` text;