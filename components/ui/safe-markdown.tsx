import Markdown, { type Components } from "react-markdown";

/**
 * The one way markdown is rendered (answers, cited memories, model previews, /memory): raw HTML
 * stays text (no rehype-raw), and an image is shown as a link, never an `<img>`, so text a model
 * or a prompt-injected fact wrote cannot make the browser fetch a URL on its own (SECURITY.md). The CSP
 * (`img-src 'self' data:`) is the second lock.
 */
function ImageAsLink({ src, alt }: { src?: string | Blob; alt?: string }) {
  const href = typeof src === "string" ? src : undefined;
  const label = `image: ${alt?.trim() || href || "(no address)"}`;
  if (!href) return <span className="text-slate-500">[{label}]</span>;
  return (
    <a
      href={href}
      rel="noopener noreferrer nofollow"
      target="_blank"
      referrerPolicy="no-referrer"
      data-testid="markdown-image-link"
      className="text-indigo-700 underline"
    >
      [{label}]
    </a>
  );
}

export function SafeMarkdown({ children, components }: { children: string; components?: Components }) {
  return (
    <Markdown skipHtml components={{ ...components, img: ImageAsLink }}>
      {children}
    </Markdown>
  );
}
