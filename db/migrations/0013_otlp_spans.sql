CREATE TABLE `otlp_spans` (
	`run_id` text NOT NULL,
	`span_id` text NOT NULL,
	`span` text NOT NULL,
	PRIMARY KEY(`run_id`, `span_id`),
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
