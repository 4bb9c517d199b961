"use client";

import { createContext, useContext } from "react";
import type { RunEvent } from "@/lib/reflect/events";

/** The run's events and bank, for the parts of a row that look up payloads when opened (memory cards). */
export const RunEventsContext = createContext<{ events: readonly RunEvent[]; bankId: string | null }>({
  events: [],
  bankId: null,
});

export const useRunEvents = () => useContext(RunEventsContext);
