ALTER TABLE `banks` ADD `import_owner` text;--> statement-breakpoint
ALTER TABLE `process_instances` ADD `process_start` text;