// Whether a host name or address is this machine's loopback: the one rule for `npm start` (which
// refuses a non-loopback HOST without a token) and next.config.mjs (which compresses only then).
export function isLoopback(host) {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "");
  return bare === "localhost" || bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare);
}
