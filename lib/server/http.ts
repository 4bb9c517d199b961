export function searchParamsObject(url: string): Record<string, string> {
  return Object.fromEntries(new URL(url).searchParams);
}
