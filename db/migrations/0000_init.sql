CREATE TABLE `banks` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`permitted_teams` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `facts` (
	`pk` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`bank_id` text NOT NULL,
	`text` text NOT NULL,
	`kind` text NOT NULL,
	`tags` text NOT NULL,
	`scope` text NOT NULL,
	`occurred_at` text,
	`recorded_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`document_id` text,
	FOREIGN KEY (`bank_id`) REFERENCES `banks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `facts_bank_id_uq` ON `facts` (`bank_id`,`id`);--> statement-breakpoint
CREATE INDEX `facts_bank_updated_idx` ON `facts` (`bank_id`,`updated_at`);--> statement-breakpoint
CREATE INDEX `facts_bank_recorded_idx` ON `facts` (`bank_id`,`recorded_at`);--> statement-breakpoint
CREATE TABLE `mental_model_versions` (
	`bank_id` text NOT NULL,
	`model_id` text NOT NULL,
	`version` integer NOT NULL,
	`name` text NOT NULL,
	`source_query` text NOT NULL,
	`content` text NOT NULL,
	`tags` text NOT NULL,
	`refreshed_at` text,
	`stale_override` text,
	`based_on_ids` text NOT NULL,
	`created_at` text,
	PRIMARY KEY(`bank_id`, `model_id`, `version`)
);
--> statement-breakpoint
CREATE TABLE `mental_models` (
	`pk` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`bank_id` text NOT NULL,
	`name` text NOT NULL,
	`source_query` text NOT NULL,
	`content` text NOT NULL,
	`tags` text NOT NULL,
	`refreshed_at` text,
	`stale_override` text,
	`based_on_ids` text NOT NULL,
	`version` integer NOT NULL,
	`updated_at` text,
	FOREIGN KEY (`bank_id`) REFERENCES `banks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mental_models_bank_id_uq` ON `mental_models` (`bank_id`,`id`);--> statement-breakpoint
CREATE TABLE `observations` (
	`pk` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`bank_id` text NOT NULL,
	`text` text NOT NULL,
	`tags` text NOT NULL,
	`scope` text NOT NULL,
	`source_fact_ids` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`bank_id`) REFERENCES `banks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `observations_bank_id_uq` ON `observations` (`bank_id`,`id`);--> statement-breakpoint
CREATE INDEX `observations_bank_updated_idx` ON `observations` (`bank_id`,`updated_at`);--> statement-breakpoint
CREATE TABLE `run_events` (
	`run_id` text NOT NULL,
	`seq` integer NOT NULL,
	`at` real NOT NULL,
	`type` text NOT NULL,
	`iteration` integer,
	`payload` text NOT NULL,
	PRIMARY KEY(`run_id`, `seq`),
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `runs` (
	`id` text PRIMARY KEY NOT NULL,
	`bank_id` text NOT NULL,
	`question` text NOT NULL,
	`skill_id` text,
	`skill_name` text,
	`skill_version` integer,
	`skill_snapshot` text,
	`budget` text NOT NULL,
	`mode` text NOT NULL,
	`scope` text NOT NULL,
	`model_kind` text NOT NULL,
	`model_name` text NOT NULL,
	`status` text NOT NULL,
	`answer` text,
	`citations` text,
	`dropped` text NOT NULL,
	`flags` text NOT NULL,
	`warnings` text NOT NULL,
	`input_tokens` integer DEFAULT 0 NOT NULL,
	`output_tokens` integer DEFAULT 0 NOT NULL,
	`llm_calls` integer DEFAULT 0 NOT NULL,
	`iterations` integer DEFAULT 0 NOT NULL,
	`error` text,
	`parent_run_id` text,
	`forked_at_iteration` integer,
	`created_at` text NOT NULL,
	`finished_at` text,
	`duration_ms` integer
);
--> statement-breakpoint
CREATE INDEX `runs_created_idx` ON `runs` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `runs_bank_created_idx` ON `runs` (`bank_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `runs_status_idx` ON `runs` (`status`);--> statement-breakpoint
CREATE TABLE `skill_versions` (
	`bank_id` text NOT NULL,
	`skill_id` text NOT NULL,
	`version` integer NOT NULL,
	`name` text NOT NULL,
	`mission` text NOT NULL,
	`disposition` text NOT NULL,
	`retrieval` text NOT NULL,
	`budget` text NOT NULL,
	`anchor_every` integer NOT NULL,
	`output_format` text NOT NULL,
	`created_at` text,
	PRIMARY KEY(`bank_id`, `skill_id`, `version`)
);
--> statement-breakpoint
CREATE TABLE `skills` (
	`id` text NOT NULL,
	`bank_id` text NOT NULL,
	`name` text NOT NULL,
	`mission` text NOT NULL,
	`disposition` text NOT NULL,
	`retrieval` text NOT NULL,
	`budget` text NOT NULL,
	`anchor_every` integer NOT NULL,
	`output_format` text NOT NULL,
	`version` integer NOT NULL,
	`updated_at` text,
	PRIMARY KEY(`bank_id`, `id`),
	FOREIGN KEY (`bank_id`) REFERENCES `banks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `skills_bank_name_uq` ON `skills` (`bank_id`,`name`);