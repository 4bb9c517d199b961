"use client";

import * as TabsPrimitive from "@radix-ui/react-tabs";
import type { ComponentProps } from "react";

/**
 * Tabs from Radix, styled: arrow keys (and Home/End) move between tabs and select them, each tab
 * names the panel it controls, the active panel is the only one rendered.
 */
export const Tabs = TabsPrimitive.Root;

type Variant = "underline" | "folder";

const LIST: Record<Variant, string> = {
  // The line under the tabs belongs to the container, which may hold more than the tabs.
  underline: "flex items-end gap-1",
  folder: "flex items-end gap-1",
};

const TAB: Record<Variant, string> = {
  underline:
    "-mb-px border-b-2 border-transparent px-3 py-1.5 text-slate-600 hover:text-slate-900 data-[state=active]:border-indigo-600 data-[state=active]:font-semibold data-[state=active]:text-slate-900",
  folder:
    "rounded-t border border-b-0 border-transparent px-2 py-0.5 text-xs text-slate-500 data-[state=active]:border-slate-300 data-[state=active]:bg-white data-[state=active]:text-slate-900",
};

export function TabList({
  variant = "underline",
  className = "",
  ...props
}: ComponentProps<typeof TabsPrimitive.List> & { variant?: Variant }) {
  return <TabsPrimitive.List className={`${LIST[variant]} ${className}`} {...props} />;
}

export function Tab({
  variant = "underline",
  className = "",
  ...props
}: ComponentProps<typeof TabsPrimitive.Trigger> & { variant?: Variant }) {
  return <TabsPrimitive.Trigger className={`${TAB[variant]} ${className}`} {...props} />;
}

export const TabPanel = TabsPrimitive.Content;
