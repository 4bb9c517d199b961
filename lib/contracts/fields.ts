/** Field schemas several contracts share, so a limit or a message is declared once. */
import { z } from "zod";

export const MAX_QUESTION_CHARS = 4000;

export const Question = z
  .string()
  .trim()
  .min(1, "ask a question")
  .max(MAX_QUESTION_CHARS, "oversize question: keep it under 4,000 characters");

export const Id = z.string().trim().min(1).max(200);
export const Tags = z.array(z.string().trim().min(1).max(100)).max(50, "at most 50 tags");
export const IsoTime = z.iso.datetime({ offset: true });

/** The bank an MCP tool works on when the agent names none. */
export const DEFAULT_MCP_BANK = "demo";
export const McpBank = z.string().min(1).optional().describe(`memory bank id (default "${DEFAULT_MCP_BANK}")`);
