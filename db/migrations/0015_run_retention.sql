CREATE TABLE `run_retention` (
	`bank_id` text PRIMARY KEY NOT NULL,
	`older_than` text,
	`keep` integer,
	`updated_at` text NOT NULL
);
