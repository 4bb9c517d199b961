CREATE TABLE `process_instances` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`pid` integer NOT NULL,
	`hostname` text NOT NULL,
	`started_at` text NOT NULL,
	`heartbeat_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `runs` ADD `owner_id` text;