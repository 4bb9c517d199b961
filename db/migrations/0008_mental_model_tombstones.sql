CREATE TABLE `mental_model_tombstones` (
	`bank_id` text NOT NULL,
	`model_id` text NOT NULL,
	`name` text NOT NULL,
	`last_version` integer NOT NULL,
	`deleted_at` text NOT NULL,
	PRIMARY KEY(`bank_id`, `model_id`),
	FOREIGN KEY (`bank_id`) REFERENCES `banks`(`id`) ON UPDATE no action ON DELETE cascade
);
