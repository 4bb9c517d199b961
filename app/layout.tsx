import type { Metadata } from "next";
import type { ReactNode } from "react";
import { AppNav } from "@/components/ui/app-nav";
import { getProviderStatus } from "@/lib/server/runtime/model";
import { Providers } from "./providers";
import "./globals.css";

export const metadata: Metadata = {
  title: "Reflect Inspector",
  description: "Debug and curate an LLM memory system's reflect step",
  // public/: the SVG for browsers that take it, the .ico for the rest (and for /favicon.ico itself);
  // the home-screen icon is app/apple-icon.png.
  icons: {
    icon: [
      { url: "/favicon.svg", type: "image/svg+xml" },
      { url: "/favicon.ico", sizes: "32x32" },
    ],
  },
};

export const dynamic = "force-dynamic";

export default function RootLayout({ children }: { children: ReactNode }) {
  const provider = getProviderStatus();
  return (
    <html lang="en">
      <body className="min-h-screen font-sans">
        <Providers>
          <AppNav provider={provider} />
          <main className="mx-auto max-w-[1600px] px-4 py-4">{children}</main>
        </Providers>
      </body>
    </html>
  );
}
