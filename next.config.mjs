import { isLoopback } from "./scripts/loopback.mjs";

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // gzip only when serving beyond loopback (HOST, as `npm start` reads it): it is the main
  // thread's work for every response (about 1 ms of a 7 ms recall request, measured) and buys
  // nothing on this machine, while over a network it makes a run page's code ~3× smaller.
  compress: !isLoopback(process.env.HOST || "127.0.0.1"),
  serverExternalPackages: ["@libsql/client", "libsql"],
  typescript: { ignoreBuildErrors: true },
  experimental: {
    // The proxy sees every request; Next hands it a copy of the body and cuts that copy (and the
    // body the route then reads) at this size, 10 MB by default. Bundle import takes up to 50 MB
    // (BUNDLE_MAX_BYTES, lib/server/http/api/endpoints.ts) and answers 413 itself beyond that, so the
    // limit sits just above it: a bigger body reaches the route still bigger than 50 MB.
    proxyClientMaxBodySize: 50_000_000 + 1_048_576,
  },
};

export default nextConfig;
