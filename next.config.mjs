/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // No gzip in the server: it is the main thread's work for every response (about 1 ms of a 7 ms
  // recall request, measured), it buys nothing on loopback, and a proxy in front of a shared
  // server can compress.
  compress: false,
  serverExternalPackages: ["@libsql/client", "libsql"],
  typescript: { ignoreBuildErrors: true },
  experimental: {
    // The proxy sees every request; Next hands it a copy of the body and cuts that copy (and the
    // body the route then reads) at this size, 10 MB by default. Bundle import takes up to 50 MB
    // (BUNDLE_MAX_BYTES, lib/server/api/endpoints.ts) and answers 413 itself beyond that, so the
    // limit sits just above it: a bigger body reaches the route still bigger than 50 MB.
    proxyClientMaxBodySize: 50_000_000 + 1_048_576,
  },
};

export default nextConfig;
