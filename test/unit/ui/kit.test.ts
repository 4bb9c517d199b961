import { createElement as h, type ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Button, buttonClass } from "@/components/ui/button";
import { cx } from "@/components/ui/classes";
import { DataTable } from "@/components/ui/data-table";
import { Field } from "@/components/ui/field";
import { controlClass, Input, Select, Textarea } from "@/components/ui/input";

/** The attributes of the first element matching `tag` in `html`. */
function attrs(html: string, tag: string): Record<string, string> {
  const m = new RegExp(`<${tag}\\b([^>]*)>`).exec(html);
  if (!m) throw new Error(`no <${tag}> in ${html}`);
  return Object.fromEntries([...(m[1] ?? "").matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]]));
}

describe("cx", () => {
  it("lets the caller's padding, text size, width and colours replace the base's, keeping the rest", () => {
    expect(cx("rounded px-2.5 py-1 text-xs text-slate-800 hover:bg-slate-50", "px-4 text-[13px] text-indigo-800")).toBe(
      "rounded py-1 hover:bg-slate-50 px-4 text-[13px] text-indigo-800",
    );
  });
  it("keeps an axis it was not given and ignores empty extras", () => {
    expect(cx("px-2 py-1", "py-0.5")).toBe("px-2 py-0.5");
    expect(cx("px-2 py-1", "")).toBe("px-2 py-1");
    expect(cx("px-2 py-1", undefined)).toBe("px-2 py-1");
  });
  it("does not take a hover or disabled variant for the base utility it modifies", () => {
    expect(cx("bg-white hover:bg-slate-50", "hover:bg-slate-100")).toBe(
      "bg-white hover:bg-slate-50 hover:bg-slate-100",
    );
  });
});

describe("Button", () => {
  it("is type=button unless told otherwise, so Enter in a form never presses it by accident", () => {
    expect(attrs(renderToStaticMarkup(h(Button, null, "Go")), "button").type).toBe("button");
    expect(attrs(renderToStaticMarkup(h(Button, { type: "submit" }, "Go")), "button").type).toBe("submit");
  });
  it("is disabled and aria-busy while busy", () => {
    const a = attrs(renderToStaticMarkup(h(Button, { busy: true }, "Saving…")), "button");
    expect(a["aria-busy"]).toBe("true");
    expect(a.disabled).toBe("");
    expect(attrs(renderToStaticMarkup(h(Button, null, "Save")), "button").disabled).toBeUndefined();
  });
  it("says a toggle's state with aria-pressed", () => {
    expect(attrs(renderToStaticMarkup(h(Button, { pressed: true }, "on")), "button")["aria-pressed"]).toBe("true");
    expect(attrs(renderToStaticMarkup(h(Button, null, "plain")), "button")["aria-pressed"]).toBeUndefined();
  });
  it("gives each variant its own colours and a size its padding; link and bare take no padding", () => {
    expect(buttonClass("primary")).toContain("bg-indigo-600");
    expect(buttonClass("danger")).toContain("bg-red-600");
    expect(buttonClass("danger-subtle")).toContain("text-red-700");
    expect(buttonClass("secondary", "xs")).toContain("text-2xs");
    expect(buttonClass("link")).not.toMatch(/\bp[xy]-/);
    expect(buttonClass("bare", undefined, "rounded px-1")).toBe("disabled:opacity-50 rounded px-1");
  });
});

describe("Field", () => {
  const markup = (props: Record<string, unknown>, control: ReactElement = h(Input, { value: "", readOnly: true })) =>
    renderToStaticMarkup(h(Field, { label: "Mission", ...props } as never, control));

  it("labels its control: the label's for is the control's id", () => {
    const html = markup({});
    const label = attrs(html, "label");
    const input = attrs(html, "input");
    expect(label.for).toBeTruthy();
    expect(input.id).toBe(label.for);
  });
  it("describes the control with its hint, counter and error, and marks it invalid on an error", () => {
    const html = markup({ hint: "One paragraph.", counter: "3 / 10", error: ["Too long", "Not empty"] });
    const input = attrs(html, "input");
    const ids = (input["aria-describedby"] ?? "").split(" ");
    expect(ids).toHaveLength(3);
    for (const id of ids) expect(html).toContain(`id="${id}"`);
    expect(input["aria-invalid"]).toBe("true");
    expect(html).toContain("Too long; Not empty");
  });
  it("is not invalid and has no description when there is nothing to say", () => {
    const input = attrs(markup({ error: [] }), "input");
    expect(input["aria-invalid"]).toBeUndefined();
    expect(input["aria-describedby"]).toBeUndefined();
  });
  it("wires a Textarea and a Select the same way, and a control's own id wins", () => {
    const ta = markup({ error: "bad" }, h(Textarea, { value: "", readOnly: true }));
    expect(attrs(ta, "textarea").id).toBe(attrs(ta, "label").for);
    expect(attrs(ta, "textarea")["aria-invalid"]).toBe("true");
    const sel = markup({ id: "budget" }, h(Select, { value: "low", onChange: () => {} }, h("option", null, "low")));
    expect(attrs(sel, "select").id).toBe("budget");
    expect(attrs(sel, "label").for).toBe("budget");
  });
  it("puts a group of controls in a fieldset with a legend", () => {
    const html = markup({ group: true }, h("span", null, "boxes"));
    expect(html).toMatch(/^<fieldset/);
    expect(html).toContain("<legend");
    expect(html).not.toContain("<label");
  });
});

describe("controls", () => {
  it("md and sm sizes differ in padding and text; a caller's padding replaces the size's", () => {
    expect(controlClass("md")).toContain("text-[13px]");
    expect(controlClass("sm")).toContain("text-xs");
    expect(controlClass("md", "w-full py-1")).toMatch(/\bpy-1\b/);
    expect(controlClass("md", "w-full py-1")).not.toContain("py-1.5");
  });
});

describe("DataTable", () => {
  const columns = [
    { key: "name", header: "Name", cell: (r: { id: string; n: number }) => r.id },
    { key: "n", header: "Count", numeric: true, cell: (r: { id: string; n: number }) => String(r.n) },
  ];
  it("shows the empty message instead of an empty table", () => {
    const html = renderToStaticMarkup(
      h(DataTable, {
        columns,
        rows: [],
        rowKey: (r: { id: string }) => r.id,
        empty: "Nothing yet.",
        testId: "t",
      } as never),
    );
    expect(html).not.toContain("<table");
    expect(html).toContain("Nothing yet.");
    expect(html).toContain('data-testid="t-empty"');
  });
  it("renders a header with column scope and one row per item, numbers right-aligned", () => {
    const rows = [
      { id: "a", n: 1 },
      { id: "b", n: 22 },
    ];
    const html = renderToStaticMarkup(
      h(DataTable, {
        columns,
        rows,
        rowKey: (r: { id: string }) => r.id,
        rowProps: (r: { id: string }) => ({ "data-testid": "row", "data-id": r.id }),
        empty: "none",
      } as never),
    );
    expect(html.match(/<th scope="col"/g)).toHaveLength(2);
    expect(html.match(/data-testid="row"/g)).toHaveLength(2);
    expect(html).toContain('data-id="b"');
    expect(html).toMatch(/<td class="[^"]*text-right[^"]*">22<\/td>/);
  });
  it("tightens rows when dense", () => {
    const rows = [{ id: "a", n: 1 }];
    const base = { columns, rows, rowKey: (r: { id: string }) => r.id, empty: "none" };
    expect(renderToStaticMarkup(h(DataTable, { ...base, dense: true } as never))).toContain("py-1 ");
    expect(renderToStaticMarkup(h(DataTable, base as never))).toContain("py-1.5");
  });
});
