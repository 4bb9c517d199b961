/** "2026-10-30 22:00" from an ISO time; "—" when absent. UTC, so server and client render alike. */
export function formatTime(iso: string | null): string {
  return iso ? `${iso.slice(0, 16).replace("T", " ")}` : "—";
}
