ALTER TABLE `facts` ADD `speaker` text;--> statement-breakpoint
ALTER TABLE `facts` ADD `session_id` text;--> statement-breakpoint
ALTER TABLE `facts` ADD `position` integer;--> statement-breakpoint
CREATE INDEX `facts_bank_session_idx` ON `facts` (`bank_id`,`session_id`,`position`);--> statement-breakpoint
CREATE INDEX `facts_bank_speaker_idx` ON `facts` (`bank_id`,`speaker`);