/** Links into the curation pages (the editors). */
export function mentalModelHref(bankId: string, id: string): string {
  return `/mental-models/${encodeURIComponent(id)}?bank=${encodeURIComponent(bankId)}`;
}

export function skillHref(bankId: string, id: string): string {
  return `/skills/${encodeURIComponent(id)}?bank=${encodeURIComponent(bankId)}`;
}
