ALTER TABLE `skill_versions` ADD `answer_format` text DEFAULT 'prose' NOT NULL;--> statement-breakpoint
ALTER TABLE `skills` ADD `answer_format` text DEFAULT 'prose' NOT NULL;