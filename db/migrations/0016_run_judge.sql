ALTER TABLE `runs` ADD `judge_of` text;--> statement-breakpoint
CREATE INDEX `runs_judge_of_idx` ON `runs` (`judge_of`);