"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useEffect, useState } from "react";

/** Set on <html> once React has hydrated the page: tests (and scripts) wait for it before typing. */
export const HYDRATED_ATTRIBUTE = "data-hydrated";

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(
    () => new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, refetchOnWindowFocus: false } } }),
  );
  // Effects run only after hydration commits (children's first): the page's controls are live now.
  useEffect(() => {
    document.documentElement.setAttribute(HYDRATED_ATTRIBUTE, "true");
  }, []);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
