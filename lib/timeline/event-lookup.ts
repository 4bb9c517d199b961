import type { RunEvent } from "@/lib/reflect/events";

/**
 * The event with `seq`, by binary search over a seq-sorted log: row details load their payloads
 * on demand instead of every row carrying them.
 */
export function findEvent(events: readonly RunEvent[], seq: number): RunEvent | undefined {
  let lo = 0;
  let hi = events.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const ev = events[mid]!;
    if (ev.seq === seq) return ev;
    if (ev.seq < seq) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}
