CREATE TABLE `experiment_runs` (
	`experiment_id` text NOT NULL,
	`idx` integer NOT NULL,
	`run_id` text NOT NULL,
	PRIMARY KEY(`experiment_id`, `idx`),
	FOREIGN KEY (`experiment_id`) REFERENCES `experiments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `experiment_runs_run_idx` ON `experiment_runs` (`run_id`);--> statement-breakpoint
CREATE TABLE `experiments` (
	`id` text PRIMARY KEY NOT NULL,
	`bank_id` text NOT NULL,
	`suite` text NOT NULL,
	`suite_version` integer NOT NULL,
	`questions` text NOT NULL,
	`config` text NOT NULL,
	`status` text NOT NULL,
	`concurrency` integer NOT NULL,
	`baseline_id` text,
	`error` text,
	`created_at` text NOT NULL,
	`finished_at` text,
	`owner_id` text
);
--> statement-breakpoint
CREATE INDEX `experiments_bank_created_idx` ON `experiments` (`bank_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `suite_versions` (
	`bank_id` text NOT NULL,
	`name` text NOT NULL,
	`version` integer NOT NULL,
	`description` text NOT NULL,
	`questions` text NOT NULL,
	`created_at` text,
	PRIMARY KEY(`bank_id`, `name`, `version`),
	FOREIGN KEY (`bank_id`) REFERENCES `banks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `suites` (
	`bank_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`questions` text NOT NULL,
	`version` integer NOT NULL,
	`updated_at` text,
	PRIMARY KEY(`bank_id`, `name`),
	FOREIGN KEY (`bank_id`) REFERENCES `banks`(`id`) ON UPDATE no action ON DELETE cascade
);
